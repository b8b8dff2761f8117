"""Everything under /api/v1/. Each app registers its endpoints on the shared router."""

from django.urls import include, path, re_path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.routers import DefaultRouter

from annotate.api import urls as annotate_api
from annotate.api.errors import not_found
from annotate.api.me import MeView
from jobs import api as jobs_api
from metrics.api import endpoints as metrics_api

router = DefaultRouter()
annotate_api.register(router)

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path(
        "redoc/",
        SpectacularRedocView.as_view(url_name="api-schema", template_name="api/redoc.html"),
        name="api-redoc",
    ),
    path("me/", MeView.as_view(), name="api-me"),
    *annotate_api.urlpatterns,
    *metrics_api.urlpatterns,
    *jobs_api.urlpatterns,
    path("", include(router.urls)),
    re_path(r"", not_found),  # last: anything else under /api/v1/ is a JSON 404
]
