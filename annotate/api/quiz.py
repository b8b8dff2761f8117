"""The qualification quiz through the API, for a campaign's managers: a scope's quiz settings
(GET, PATCH) with each rater's results, and another attempt for a rater (POST). The scope is
the campaign's graded quiz or a comparison's side-by-side quiz. Raters and outsiders get 404,
as for any managed thing."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api.corpus import REFUSED
from annotate.api.scoping import managed_campaign
from annotate.api.sxs import managed_comparison
from annotate.models import Campaign, Comparison
from annotate.models.quiz_settings import MAX_QUIZ_ATTEMPTS, MAX_QUIZ_ITEMS
from annotate.selectors.quiz import RaterQuiz, quiz_results
from annotate.services.quiz import QuizRefused, quiz_gold_count, quiz_grant, quiz_settings_set


class QuizSettingsInputSerializer(serializers.Serializer):
    # None when left out: a form-encoded body must not untick it by omission.
    required = serializers.BooleanField(required=False, allow_null=True, default=None)
    items = serializers.IntegerField(min_value=1, max_value=MAX_QUIZ_ITEMS, required=False)
    pass_percent = serializers.IntegerField(min_value=1, max_value=100, required=False)
    attempts = serializers.IntegerField(min_value=1, max_value=MAX_QUIZ_ATTEMPTS, required=False)


class QuizAttemptSerializer(serializers.Serializer):
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    correct = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.FloatField()
    passed = serializers.BooleanField(allow_null=True, help_text="null while under way")


class RaterQuizSerializer(serializers.Serializer):
    rater = serializers.CharField(source="username")
    rater_id = serializers.IntegerField()
    passed = serializers.BooleanField()
    allowed = serializers.IntegerField(help_text="Attempts allowed, grants included.")
    left = serializers.IntegerField()
    attempts = QuizAttemptSerializer(many=True)


class QuizSerializer(QuizSettingsInputSerializer):
    gold = serializers.IntegerField(help_text="Gold questions marked for this quiz.")
    raters = RaterQuizSerializer(many=True)


class QuizGrantInputSerializer(serializers.Serializer):
    rater = serializers.IntegerField(min_value=1, max_value=2**62, help_text="The rater's id.")


def _body(scope: Campaign | Comparison) -> dict:
    rows: list[RaterQuiz] = quiz_results(scope)
    return {
        "required": scope.quiz_required,
        "items": scope.quiz_items,
        "pass_percent": scope.quiz_pass_percent,
        "attempts": scope.quiz_attempts,
        "gold": quiz_gold_count(scope),
        "raters": RaterQuizSerializer(rows, many=True).data,
    }


def _valid(serializer_class: type[serializers.Serializer], data: object) -> dict:
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        errors = {k: [str(e) for e in v] for k, v in serializer.errors.items()}
        raise QuizRefused("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))
    return dict(serializer.validated_data)


def _patch(scope: Campaign | Comparison, data: object) -> Response:
    values = _valid(QuizSettingsInputSerializer, data)
    quiz_settings_set(
        scope=scope,
        required=scope.quiz_required if values["required"] is None else values["required"],
        items=values.get("items", scope.quiz_items),
        pass_percent=values.get("pass_percent", scope.quiz_pass_percent),
        attempts=values.get("attempts", scope.quiz_attempts),
    )
    return Response(_body(scope))


def _grant(scope: Campaign | Comparison, request: Request) -> Response:
    data = _valid(QuizGrantInputSerializer, request.data)
    quiz_grant(scope=scope, rater_id=data["rater"], manager=request.user)
    return Response(_body(scope), status=status.HTTP_201_CREATED)


class CampaignQuizView(APIView):
    """The campaign's graded quiz: its settings and each rater's attempts (GET), change the
    settings (PATCH, any of required, items, pass_percent, attempts)."""

    @extend_schema(responses={200: QuizSerializer, **REFUSED})
    def get(self, request: Request, slug: str) -> Response:
        return Response(_body(managed_campaign(request.user, slug)))

    @extend_schema(request=QuizSettingsInputSerializer, responses={200: QuizSerializer, **REFUSED})
    def patch(self, request: Request, slug: str) -> Response:
        return _patch(managed_campaign(request.user, slug), request.data)


class CampaignQuizGrantView(APIView):
    """One more attempt at the campaign's graded quiz for a rater."""

    @extend_schema(request=QuizGrantInputSerializer, responses={201: QuizSerializer, **REFUSED})
    def post(self, request: Request, slug: str) -> Response:
        return _grant(managed_campaign(request.user, slug), request)


class ComparisonQuizView(APIView):
    """The comparison's side-by-side quiz: settings and results (GET), settings (PATCH)."""

    @extend_schema(responses={200: QuizSerializer, **REFUSED})
    def get(self, request: Request, pk: int) -> Response:
        return Response(_body(managed_comparison(request, pk)))

    @extend_schema(request=QuizSettingsInputSerializer, responses={200: QuizSerializer, **REFUSED})
    def patch(self, request: Request, pk: int) -> Response:
        return _patch(managed_comparison(request, pk), request.data)


class ComparisonQuizGrantView(APIView):
    """One more attempt at the comparison's quiz for a rater."""

    @extend_schema(request=QuizGrantInputSerializer, responses={201: QuizSerializer, **REFUSED})
    def post(self, request: Request, pk: int) -> Response:
        return _grant(managed_comparison(request, pk), request)
