"""One exception handler for the whole API: every refusal is a 4xx with a JSON body that says
what is wrong, whatever format was asked for.

The services raise their own errors (a judging Refused with its status, ImportFailed naming
``file:line``, ValueError for a bad parameter); views call them without catching, and this
handler turns them into answers, so a view stays a few lines and no refusal becomes a 500.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import status
from rest_framework.exceptions import (
    AuthenticationFailed,
    NotAuthenticated,
    Throttled,
    ValidationError,
)
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler

from annotate.api.throttling import AnonThrottle
from annotate.judging.kinds import Refused
from annotate.services.gold import GoldRefused
from annotate.services.imports import ImportFailed
from annotate.services.quiz import QuizRefused
from annotate.services.sxs_setup import ComparisonRefused
from config.uploads import size_text


@csrf_exempt  # a POST to no endpoint is a 404, not a CSRF refusal page
def not_found(request: HttpRequest, *args, **kwargs) -> JsonResponse:
    """Any path under /api/v1/ that no endpoint matches: a JSON 404 like every other refusal,
    not Django's HTML page."""
    return JsonResponse({"detail": f"No endpoint at {request.path}."}, status=404)


class FormInvalid(Exception):
    """Input refused by a Django form (the web page's own checks, reused by the API)."""

    def __init__(self, form) -> None:
        super().__init__("invalid input")
        self.errors = {field: [str(e) for e in errors] for field, errors in form.errors.items()}

    @property
    def detail(self) -> str:
        return " ".join(
            f"{field}: {message}" if field != "__all__" else message
            for field, messages in self.errors.items()
            for message in messages
        )


def _as_json(context: dict) -> None:
    # An error asked for as CSV or plain text is still JSON: finalize_response reads the
    # renderer from the request, so switching it here is enough.
    request = context.get("request")
    if request is not None:
        request.accepted_renderer = JSONRenderer()
        request.accepted_media_type = JSONRenderer.media_type


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    body: dict | None = None
    code = status.HTTP_400_BAD_REQUEST
    if isinstance(exc, FormInvalid):
        body = {"detail": exc.detail, "errors": exc.errors}
    elif isinstance(exc, RequestDataTooBig | TooManyFieldsSent | TooManyFilesSent):
        # Django's bounds on a body read whole (DRF reads JSON and form bodies through
        # request.body) and on the fields of a form: a JSON 413, not Django's HTML 400.
        body, code = {"detail": _too_big_detail()}, status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    elif isinstance(exc, Refused):  # GradeRefused, VerdictRefused
        body, code = {"detail": exc.message, **exc.details}, exc.status
    elif isinstance(exc, ImportFailed):
        body = {"detail": str(exc), "file": exc.path, "line": exc.line, "reason": exc.reason}
    elif isinstance(exc, ComparisonRefused):
        body = {"detail": str(exc)}
    elif isinstance(exc, GoldRefused):
        body = {"detail": exc.message}
    elif isinstance(exc, QuizRefused):
        body, code = {"detail": exc.message}, exc.status
    elif isinstance(exc, DjangoValidationError):
        body = {"detail": " ".join(exc.messages)}
    elif isinstance(exc, DjangoPermissionDenied):
        body, code = {"detail": str(exc) or "You may not do this."}, status.HTTP_403_FORBIDDEN
    elif isinstance(exc, IntegrityError):
        # A unique name taken by a concurrent request between our check and the write.
        body, code = {"detail": "This conflicts with data saved meanwhile; try again."}, 409
    elif isinstance(exc, ValueError):
        body = {"detail": str(exc)}
    if body is not None:
        _as_json(context)
        return Response(body, status=code)
    if isinstance(exc, NotAuthenticated | AuthenticationFailed):
        exc = _throttled_or(exc, context)
    response = exception_handler(exc, context)
    if response is not None:
        _as_json(context)
        if isinstance(exc, ValidationError) and not _has_detail(response.data):
            # Field errors: one sentence for people, the fields for programs; the same shape
            # as every other refusal ({"detail": ..., "errors": {field: [messages]}}).
            errors = (
                response.data if isinstance(response.data, dict) else {"__all__": response.data}
            )
            response.data = {"detail": _sentence(errors), "errors": errors}
    return response


def _too_big_detail() -> str:
    size, fields = settings.DATA_UPLOAD_MAX_MEMORY_SIZE, settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    return (
        f"The request body or its form fields are larger than {size_text(size or 0)}"
        + (f" or hold more than {fields:,} fields" if fields else "")
        + ", the limit for what is not a file. Send files as multipart/form-data file parts."
    )


def _throttled_or(exc: Exception, context: dict) -> Exception:
    """DRF checks permissions before throttles, so a caller without valid credentials would
    never be throttled: count their refusals against the anonymous rate here instead."""
    request, view = context.get("request"), context.get("view")
    if request is None or view is None:
        return exc
    throttle = AnonThrottle()
    if throttle.allow_request(request, view):
        return exc
    return Throttled(wait=throttle.wait())


def _has_detail(data) -> bool:
    return isinstance(data, dict) and isinstance(data.get("detail"), str)


def _sentence(errors: dict) -> str:
    parts = []
    for field, messages in errors.items():
        items = messages if isinstance(messages, list) else [messages]
        text = " ".join(str(m) if not isinstance(m, dict | list) else "invalid" for m in items)
        parts.append(text if field in ("__all__", "non_field_errors") else f"{field}: {text}")
    return " ".join(parts)
