"""The jobs in the API: GET a job for its state and progress, POST to cancel it, list a
campaign's jobs. Managers of the job's campaign only; anyone else gets a JSON 404."""

from __future__ import annotations

from django.urls import path, reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api.scoping import managed_campaign
from jobs.models import Job, Kind, State
from jobs.selectors import job_for_manager
from jobs.services import campaign_jobs, cancel_job, reap_stale, status


class JobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="GET it for the job's state and progress.")
    kind = serializers.ChoiceField(choices=Kind.choices)
    title = serializers.CharField()
    started_by = serializers.CharField()
    state = serializers.ChoiceField(choices=State.choices)
    finished = serializers.BooleanField()
    unit = serializers.CharField(help_text="What done and total count: lines, steps...")
    done = serializers.IntegerField()
    total = serializers.IntegerField(help_text="0 when not known")
    rate = serializers.FloatField(help_text="units per second since the job started")
    seconds_left = serializers.FloatField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    heartbeat_at = serializers.DateTimeField(allow_null=True)
    cancel_requested = serializers.BooleanField()
    outcome = serializers.CharField(help_text="The import summary, once it succeeded")
    warnings = serializers.ListField(child=serializers.CharField())
    error = serializers.CharField(help_text="`file:line: why`, or why the job stopped")
    worker = serializers.CharField()


def job_data(request: Request, job: Job) -> dict:
    data = status(job)
    data["url"] = request.build_absolute_uri(reverse("api-job", kwargs={"pk": job.pk}))
    return JobSerializer(data).data


class JobView(APIView):
    @extend_schema(responses={200: JobSerializer})
    def get(self, request: Request, pk: int) -> Response:
        reap_stale()
        _, job = job_for_manager(request.user, pk)
        return Response(job_data(request, job))


class JobCancelView(APIView):
    @extend_schema(
        request=None,
        responses={200: JobSerializer},
        description="A queued job is cancelled at once; a running one stops at its next "
        "progress report and writes nothing.",
    )
    def post(self, request: Request, pk: int) -> Response:
        _, job = job_for_manager(request.user, pk)
        return Response(job_data(request, cancel_job(job)))


class CampaignJobsView(APIView):
    @extend_schema(
        responses={200: JobSerializer(many=True)},
        description="The campaign's latest 50 jobs, newest first: a short list, not paged.",
    )
    def get(self, request: Request, slug: str) -> Response:
        campaign = managed_campaign(request.user, slug)
        return Response([job_data(request, job) for job in campaign_jobs(campaign.pk)])


urlpatterns = [
    path("jobs/<int:pk>/", JobView.as_view(), name="api-job"),
    path("jobs/<int:pk>/cancel/", JobCancelView.as_view(), name="api-job-cancel"),
    path("campaigns/<slug:slug>/jobs/", CampaignJobsView.as_view(), name="api-campaign-jobs"),
]
