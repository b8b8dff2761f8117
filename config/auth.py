"""Django's ModelBackend with a cheaper read of the signed-in user.

Every request of a signed-in user loads the user (AuthenticationMiddleware); the ORM's
`get(pk=...)` cost more CPU to compile than the rest of the session's work. Same rule
otherwise: an inactive user gets no user (ModelBackend.user_can_authenticate).
"""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from config.db import fetch_instances


class ModelBackend(AxesStandaloneBackend, DjangoModelBackend):
    """Also the sign-in throttle: a sign-in that comes with a request (the login page, the
    admin's) is refused while its account or address is locked out (django-axes), before any
    password is hashed. One backend, so a failed sign-in still hashes the password once. A call
    without a request comes from the project's own code (a command, a test client's login),
    never from a visitor, and is not counted."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is not None:
            # Raises PermissionDenied when locked out; django.contrib.auth.authenticate turns
            # that into a failed sign-in, which axes counts and answers with its lockout page.
            AxesStandaloneBackend.authenticate(self, request, username, password, **kwargs)
        return DjangoModelBackend.authenticate(self, request, username, password, **kwargs)

    def get_user(self, user_id: object) -> AbstractBaseUser | None:
        model = get_user_model()
        try:
            pk = model._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        quote = connection.ops.quote_name
        table, key = quote(model._meta.db_table), quote(model._meta.pk.column)
        sql = f"SELECT {{columns}} FROM {table} t WHERE t.{key} = %s"
        found = fetch_instances(model, sql, [pk])
        if not found or not self.user_can_authenticate(found[0]):
            return None
        return found[0]


def client_address(request: HttpRequest) -> str | None:
    """The visitor's address, read as the API's throttle reads it: REMOTE_ADDR, or behind
    API_TRUSTED_PROXIES reverse proxies that many hops from the end of X-Forwarded-For (the
    hops the client itself wrote are not trusted)."""
    proxies = settings.REST_FRAMEWORK.get("NUM_PROXIES") or 0
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies and forwarded:
        hops = [hop.strip() for hop in forwarded.split(",")]
        return hops[-min(proxies, len(hops))]
    return request.META.get("REMOTE_ADDR")


def lockout_response(
    request: HttpRequest, original_response=None, credentials=None
) -> HttpResponse:
    """The page a locked-out sign-in gets (429), on /login/ and /admin/login/ alike."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "minutes": minutes}
    return render(request, "registration/locked_out.html", context, status=429)
