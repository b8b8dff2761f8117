"""Campaigns and what they are made of: queries, documents, systems, runs with their entries,
and the pool. Read-only lists on the router for the campaigns' managers; uploads are explicit
writes that run the import services (the same checks, placeholders and ``file:line`` errors as
the command and the upload page)."""

from __future__ import annotations

from django.db.models import Count, F, IntegerField, Q, QuerySet, Value
from django.db.models.functions import Coalesce
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api import filters
from annotate.api.errors import FormInvalid
from annotate.api.formats import streamed_csv, wants_csv
from annotate.api.pagination import IdCursorPagination, SlugCursorPagination
from annotate.api.scoping import managed, managed_campaign
from annotate.api.serializers import (
    ID_REGEX,
    JSON,
    CampaignCreateSerializer,
    CampaignSerializer,
    DocumentSerializer,
    ErrorSerializer,
    ImportInputSerializer,
    ImportSummarySerializer,
    PoolItemSerializer,
    QuerySerializer,
    RunEntrySerializer,
    RunSerializer,
    RunUploadSerializer,
    SystemSerializer,
)
from annotate.forms.imports import ImportForm
from annotate.forms.manage import CampaignCreateForm
from annotate.models import Campaign, Document, Membership, PoolItem, Query, Run, RunEntry, System
from annotate.selectors import campaigns_for
from annotate.services.imports import import_file
from annotate.services.manage import campaign_open
from annotate.views.manage_campaign import may_create_campaigns
from jobs.api import JobSerializer, job_data
from jobs.web import is_large_upload, start_import_job

ACCEPTED = OpenApiResponse(
    JobSerializer,
    description="A file over JOBS_SYNC_MAX_BYTES (1 MiB) is imported in the background: the "
    "body is the job, and Location its URL to GET for state and progress. Smaller files are "
    "imported in the request (201).",
)
REFUSED = {
    (400, JSON): OpenApiResponse(ErrorSerializer, description="Bad input; the body says what."),
    (404, JSON): OpenApiResponse(ErrorSerializer, description="No such campaign for the caller."),
}


class CampaignViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Campaigns the caller belongs to. Staff users may create one (they become its
    manager), as on the web page."""

    serializer_class = CampaignSerializer
    lookup_field = "slug"
    lookup_value_regex = "[-a-zA-Z0-9_]+"
    filter_backends: list = []
    pagination_class = SlugCursorPagination

    def get_queryset(self) -> QuerySet[Campaign]:
        return campaigns_for(self.request.user).order_by("slug").prefetch_related("labels")

    def get_serializer_context(self) -> dict:
        context = super().get_serializer_context()
        user = self.request.user
        roles = dict(Membership.objects.filter(user=user).values_list("campaign_id", "role"))
        if user.is_superuser:
            roles = {pk: "manager" for pk in self.get_queryset().values_list("pk", flat=True)}
        context["roles"] = roles
        return context

    @extend_schema(
        request=CampaignCreateSerializer,
        responses={
            201: CampaignSerializer,
            (400, JSON): ErrorSerializer,
            (403, JSON): ErrorSerializer,
        },
    )
    def create(self, request: Request, *args, **kwargs) -> Response:
        if not may_create_campaigns(request.user):
            raise PermissionDenied("Only staff users may create campaigns.")
        form = CampaignCreateForm(_form_data(request.data, CampaignCreateForm))
        if not form.is_valid():
            raise FormInvalid(form)
        campaign = campaign_open(created_by=request.user, **form.cleaned_data)
        data = CampaignSerializer(campaign, context=self.get_serializer_context()).data
        return Response(data, status=status.HTTP_201_CREATED)


def _form_data(data, form_class) -> dict:
    """The fields of a Django form from a JSON body: defaults filled in for those left out,
    since a ModelForm treats a missing field as empty, not as its default."""
    out = {}
    for name, field in form_class.base_fields.items():
        if name in data:
            out[name] = data[name]
        elif field.initial is not None:
            out[name] = field.initial
        elif getattr(form_class, "_meta", None) is not None:
            model_field = form_class._meta.model._meta.get_field(name)
            if model_field.has_default():
                out[name] = model_field.get_default()
    return out


class ManagedViewSet(viewsets.ReadOnlyModelViewSet):
    """The rows of the campaigns the caller manages (404 for one of another campaign)."""

    campaign_path = "campaign"
    lookup_value_regex = ID_REGEX

    def scoped(self, queryset: QuerySet) -> QuerySet:
        return queryset.filter(**{f"{self.campaign_path}__in": managed(self.request.user)})


class QueryViewSet(ManagedViewSet):
    serializer_class = QuerySerializer
    filterset_class = filters.QueryFilter

    def get_queryset(self) -> QuerySet[Query]:
        return self.scoped(Query.objects.select_related("campaign")).order_by("id")


class DocumentViewSet(ManagedViewSet):
    serializer_class = DocumentSerializer
    filterset_class = filters.DocumentFilter

    def get_queryset(self) -> QuerySet[Document]:
        return self.scoped(Document.objects.select_related("campaign")).order_by("id")


class SystemViewSet(ManagedViewSet):
    serializer_class = SystemSerializer
    filterset_class = filters.SystemFilter

    def get_queryset(self) -> QuerySet[System]:
        return (
            self.scoped(System.objects.select_related("campaign"))
            .prefetch_related("runs")
            .order_by("id")
        )


class RunViewSet(mixins.CreateModelMixin, ManagedViewSet):
    """Runs, and the upload of a TREC run file (multipart)."""

    serializer_class = RunSerializer
    filterset_class = filters.RunFilter

    def get_queryset(self) -> QuerySet[Run]:
        return (
            self.scoped(Run.objects.select_related("campaign", "system"))
            .annotate(
                n_entries=Count("entries"),
                n_queries=Count("entries__query", distinct=True),
            )
            .order_by("id")
        )

    @extend_schema(
        request={"multipart/form-data": RunUploadSerializer},
        responses={201: ImportSummarySerializer, 202: ACCEPTED, **REFUSED},
    )
    def create(self, request: Request, *args, **kwargs) -> Response:
        campaign = managed_campaign(request.user, str(request.data.get("campaign", "")))
        return run_import(request, campaign, kind="run")


class RunEntryViewSet(ManagedViewSet):
    """A run's entries in file order (the order they were imported), cursor-paginated;
    ``?format=csv`` streams them all."""

    serializer_class = RunEntrySerializer
    filterset_class = filters.RunEntryFilter
    pagination_class = IdCursorPagination
    campaign_path = "run__campaign"

    def get_queryset(self) -> QuerySet[RunEntry]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator
            return RunEntry.objects.none()
        runs = Run.objects.filter(campaign__in=managed(self.request.user))
        run = get_object_or_404(runs, pk=self.kwargs["run_pk"])
        return RunEntry.objects.filter(run=run).select_related("query", "document").order_by("id")

    def list(self, request: Request, *args, **kwargs) -> Response:
        if wants_csv(request):
            rows = (
                self.filter_queryset(self.get_queryset())
                .values_list("id", "query__external_id", "document__external_id", "rank", "score")
                .iterator(chunk_size=5000)
            )
            fields = ["id", "query", "document", "rank", "score"]
            return streamed_csv(fields, rows, filename=f"run-{self.kwargs['run_pk']}.csv")
        return super().list(request, *args, **kwargs)


class PoolItemViewSet(ManagedViewSet):
    """The pool, cursor-paginated; ``?format=csv`` streams it all."""

    serializer_class = PoolItemSerializer
    filterset_class = filters.PoolItemFilter
    pagination_class = IdCursorPagination

    def get_queryset(self) -> QuerySet[PoolItem]:
        return (
            self.scoped(PoolItem.objects.select_related("campaign", "query", "document"))
            .annotate(
                n_grades=Count("grades", filter=Q(grades__cant_judge=False, grades__gold=False)),
                n_needed=Coalesce(
                    F("raters_needed"),
                    F("campaign__overlap"),
                    Value(1),
                    output_field=IntegerField(),
                ),
            )
            .order_by("id")
        )

    def list(self, request: Request, *args, **kwargs) -> Response:
        if wants_csv(request):
            rows = (
                self.filter_queryset(self.get_queryset())
                .values_list(
                    "id",
                    "campaign__slug",
                    "query__external_id",
                    "document__external_id",
                    "origin",
                    "raters_needed",
                    "n_needed",
                    "n_grades",
                    "created_at",
                )
                .iterator(chunk_size=5000)
            )
            fields = list(PoolItemSerializer.Meta.fields)
            return streamed_csv(fields, rows, filename="pool.csv")
        return super().list(request, *args, **kwargs)


def run_import(request: Request, campaign: Campaign, *, kind: str | None = None) -> Response:
    """Check the upload with the upload page's form, then import it in one transaction; an
    ImportFailed (``file:line: what``) becomes a 400 through the exception handler."""
    data = {key: request.data.get(key) for key in ImportForm.base_fields if key != "file"}
    if kind is not None:
        data["kind"] = kind
    data = {k: v for k, v in data.items() if v is not None}
    form = ImportForm(data, request.FILES)
    if not form.is_valid():
        raise FormInvalid(form)
    options = dict(form.cleaned_data)
    upload = options.pop("file")
    if is_large_upload(upload):
        body = job_data(request, start_import_job(campaign, request.user, data, upload))
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})
    summary = import_file(campaign=campaign, file=upload, filename=upload.name, **options)
    return Response(ImportSummarySerializer(summary).data, status=status.HTTP_201_CREATED)


class ImportView(APIView):
    """Upload a file into a campaign: queries, documents, a run, qrels (a label source) or seed
    004's ``label qid score`` lines. Managers of the campaign only."""

    @extend_schema(
        request={"multipart/form-data": ImportInputSerializer},
        responses={201: ImportSummarySerializer, 202: ACCEPTED, **REFUSED},
    )
    def post(self, request: Request, slug: str) -> Response:
        return run_import(request, managed_campaign(request.user, slug))
