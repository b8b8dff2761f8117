"""Manager pages for a campaign itself: create it, edit its settings and guidelines, edit its
label scale.

Who may create a campaign: staff users and superusers (the people an organisation trusts to
start evaluation work); the creator becomes the campaign's manager. Everything else here is
for the campaign's managers only; anyone else gets a 404, as on the campaign page.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from annotate.forms.manage import (
    CampaignCreateForm,
    CampaignSettingsForm,
    LabelFormSet,
    RelevantFromForm,
)
from annotate.selectors import campaign_managed_by
from annotate.services.manage import SETTINGS_FIELDS, campaign_open, campaign_update
from annotate.services.markdown import guidelines_html
from annotate.services.scale import ScaleInvalid, relevant_from_problem, scale_save


def may_create_campaigns(user) -> bool:
    return user.is_authenticated and (user.is_staff or user.is_superuser)


@login_required
def campaign_new(request: HttpRequest) -> HttpResponse:
    if not may_create_campaigns(request.user):
        raise PermissionDenied("Only staff users may create campaigns.")
    form = CampaignCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            campaign = campaign_open(created_by=request.user, **form.cleaned_data)
        except IntegrityError:  # the same slug taken a moment ago by someone else
            form.add_error("slug", _("A campaign with this slug already exists."))
        else:
            messages.success(
                request, _("Campaign “%(name)s” created; you manage it.") % {"name": campaign.name}
            )
            return redirect(campaign)
    status = 400 if form.is_bound else 200
    return render(request, "annotate/manage_campaign_new.html", {"form": form}, status=status)


@login_required
def campaign_settings(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = CampaignSettingsForm(request.POST or None, instance=campaign)
    preview = None
    status = 200
    if request.method == "POST":
        valid = form.is_valid()
        if valid:
            problem = relevant_from_problem(
                campaign=campaign, relevant_from=form.cleaned_data["relevant_from"]
            )
            if problem:
                form.add_error("relevant_from", problem)
                valid = False
        if valid and "preview" not in request.POST:
            campaign_update(campaign=campaign, **{f: form.cleaned_data[f] for f in SETTINGS_FIELDS})
            messages.success(request, _("Settings saved."))
            return redirect("annotate:manage_settings", slug=campaign.slug)
        # A preview (or a form with errors) shows what was typed, rendered, unsaved.
        preview = guidelines_html(request, campaign, request.POST.get("guidelines", ""))
        status = 200 if valid else 400
    else:
        preview = guidelines_html(request, campaign)
    context = {"campaign": campaign, "form": form, "preview": preview}
    return render(request, "annotate/manage_settings.html", context, status=status)


def _initial_labels(campaign) -> list[dict]:
    return [
        {"id": x.pk, "name": x.name, "grade": f"{x.grade:g}", "key": x.key.upper(), "ORDER": i + 1}
        for i, x in enumerate(campaign.labels.all())
    ]


@login_required
def campaign_scale(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    initial = _initial_labels(campaign)
    if request.method != "POST":
        formset = LabelFormSet(initial=initial, prefix="labels")
        level = RelevantFromForm(initial={"relevant_from": campaign.relevant_from})
        return _scale_page(request, campaign, formset, level, [])
    formset = LabelFormSet(request.POST, initial=initial, prefix="labels")
    level = RelevantFromForm(request.POST)
    errors: list[str] = []
    if formset.is_valid() and level.is_valid():
        labels = [form.spec(delete=False) for form in formset.ordered_forms]
        # A ticked "Delete" on a new, unsaved row simply drops it.
        labels += [
            form.spec(delete=True) for form in formset.deleted_forms if form.cleaned_data.get("id")
        ]
        try:
            warnings = scale_save(
                campaign=campaign,
                labels=labels,
                relevant_from=level.cleaned_data["relevant_from"],
            )
        except ScaleInvalid as exc:
            errors = exc.messages
        else:
            messages.success(request, _("Label scale saved."))
            for warning in warnings:
                messages.warning(request, warning)
            return redirect(reverse("annotate:manage_scale", kwargs={"slug": campaign.slug}))
    else:
        errors = [_("Some fields need attention; see below.")]
    return _scale_page(request, campaign, formset, level, errors, status=400)


def _scale_page(request, campaign, formset, level, errors, status=200) -> HttpResponse:
    context = {"campaign": campaign, "formset": formset, "level": level, "errors": errors}
    return render(request, "annotate/manage_scale.html", context, status=status)
