"""The annotate app's REST endpoints. Permissions go through annotate.selectors, as the pages do."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import BaseRouter
from rest_framework.views import APIView

from annotate.models import Campaign, Membership
from annotate.selectors import campaigns_for


class CampaignSerializer(serializers.ModelSerializer):
    class Meta:
        model = Campaign
        fields = ["slug", "name", "description", "aggregation", "relevant_from", "overlap"]


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
        memberships = Membership.objects.filter(user=request.user).select_related("campaign")
        data = {"username": request.user.get_username(), "memberships": memberships}
        return Response(MeSerializer(data).data)


class CampaignViewSet(viewsets.ReadOnlyModelViewSet):
    """Campaigns the caller belongs to."""

    serializer_class = CampaignSerializer
    lookup_field = "slug"

    def get_queryset(self):
        return campaigns_for(self.request.user).order_by("slug")


def register(router: BaseRouter) -> None:
    router.register("campaigns", CampaignViewSet, basename="campaign")
