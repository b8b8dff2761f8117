"""Root URLs: the web UI, Django's auth views, the admin and the versioned API."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

from annotate.admin.shortcut import scoped_shortcut
from annotate.views import help as help_views

urlpatterns = [
    path("", include("annotate.urls")),
    path("", include("jobs.urls")),
    path("", include("llmjudge.urls")),
    path("reports/", include("metrics.reports.urls")),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    # Before the admin's own: its "view on site" shortcut, scoped to the managed campaigns.
    path(
        "admin/r/<int:content_type_id>/<path:object_id>/",
        scoped_shortcut,
        name="admin_view_on_site_scoped",
    ),
    path("help/", help_views.help_page, name="help"),
    path("admin/", admin.site.urls),
    # The judging screens' messages in the page's language (static/js/*.js call gettext).
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("api/v1/", include("config.api_urls")),
]
