"""The manager's upload: form -> import service -> back to the campaign page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotate.forms.imports import ImportForm
from annotate.selectors import campaign_managed_by
from annotate.services.imports import ImportFailed, import_file
from jobs.uploads import UploadTooLarge
from jobs.web import announce, is_large_upload, start_import_job


@login_required
@require_http_methods(["GET", "POST"])
def campaign_import(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    status = 200
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES)
        if form.is_valid():
            upload = form.cleaned_data.pop("file")
            try:
                if is_large_upload(upload):
                    job = start_import_job(campaign, request.user, request.POST, upload)
                    announce(request, job)
                    return redirect("jobs:campaign", slug=campaign.slug)
                # The upload is passed as bytes (Django spools big ones to a temporary file) and
                # decoded line by line, so a byte that is not UTF-8 is reported at its line.
                summary = import_file(
                    campaign=campaign, file=upload, filename=upload.name, **form.cleaned_data
                )
            except (ImportFailed, UploadTooLarge) as exc:
                messages.error(request, _("Nothing was imported: %(why)s") % {"why": exc})
            else:
                # Shown in the section the page jumps to, not above it, off-screen (#21).
                messages.success(request, str(summary), extra_tags="section-imports")
                for warning in summary.warnings:
                    messages.warning(request, warning, extra_tags="section-imports")
                return redirect(f"{campaign.get_absolute_url()}#imports")
        status = 400
    else:
        form = ImportForm()
    context = {"campaign": campaign, "import_form": form}
    return render(request, "annotate/import_page.html", context, status=status)
