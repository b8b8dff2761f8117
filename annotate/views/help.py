"""The documentation served by the app (annotate.services.help_docs)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotate.services.help_docs import help_sections


@login_required
@require_GET
def help_page(request: HttpRequest) -> HttpResponse:
    return render(request, "help.html", {"sections": help_sections()})
