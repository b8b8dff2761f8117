"""Who the caller is, their role in each campaign, and the side-by-side comparisons they rate."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.models import Membership


class MembershipSerializer(serializers.ModelSerializer):
    campaign = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = Membership
        fields = ["campaign", "role"]


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    memberships = MembershipSerializer(many=True)


class MeView(APIView):
    """Who the caller is and their role in each campaign."""

    @extend_schema(responses=MeSerializer)
    def get(self, request: Request) -> Response:
        memberships = (
            Membership.objects.filter(user=request.user)
            .select_related("campaign")
            .order_by("campaign__slug")
        )
        data = {"username": request.user.get_username(), "memberships": memberships}
        return Response(MeSerializer(data).data)
