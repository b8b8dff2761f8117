"""The upload size limit: a request body larger than ``INPUT_LIMITS["upload_bytes"]`` (1 GiB by
default) is answered 413 before any of it is read.

The WSGI server passes the body's length in CONTENT_LENGTH, and Django never reads past it, so
checking the header bounds every upload: web forms, the API and the judging endpoints alike.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.html import escape

from annotate.inputs import limit


def size_text(n: int) -> str:
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            return f"{n / size:.4g} {unit}"
    return f"{n} bytes"


def too_large_message(length: int, maximum: int) -> str:
    return (
        f"The upload is {size_text(length)}; the limit is {size_text(maximum)}. "
        "Split the file into smaller ones, or ask an administrator to raise "
        "INPUT_LIMITS['upload_bytes']. Nothing was imported."
    )


class UploadLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        maximum = limit("upload_bytes")
        if length > maximum:
            message = too_large_message(length, maximum)
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": message}, status=413)
            page = (
                "<!doctype html><html lang=en><meta charset=utf-8><title>Upload too large"
                f"</title><h1>Upload too large</h1><p>{escape(message)}</p></html>"
            )
            return HttpResponse(page, status=413)
        return self.get_response(request)
