"""The manager's quiz page: each scope's quiz settings (the campaign's graded quiz, each
comparison's side-by-side quiz), every rater's attempts, scores and results, and another
attempt granted in one click. Managers of the campaign only (404 for anyone else)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from annotate.forms.quiz import QuizGrantForm, QuizSettingsForm
from annotate.models import Campaign, Comparison
from annotate.selectors import campaign_managed_by
from annotate.selectors import quiz as quiz_selectors
from annotate.services.quiz import QuizRefused, quiz_gold_count, quiz_grant, quiz_settings_set


def _scope(campaign: Campaign, comparison_id: int | None) -> Campaign | Comparison:
    if comparison_id is None:
        return campaign
    comparison = campaign.comparisons.filter(pk=comparison_id).first()
    if comparison is None:
        raise Http404("No such comparison")
    return comparison


def _section(scope: Campaign | Comparison, form: QuizSettingsForm | None = None) -> dict:
    is_sxs = isinstance(scope, Comparison)
    initial = {
        "comparison": scope.pk if is_sxs else None,
        "quiz_required": scope.quiz_required,
        "quiz_items": scope.quiz_items,
        "quiz_pass_percent": scope.quiz_pass_percent,
        "quiz_attempts": scope.quiz_attempts,
    }
    prefix = f"c{scope.pk}" if is_sxs else "graded"
    return {
        "scope": scope,
        "comparison_id": scope.pk if is_sxs else "",
        "prefix": prefix,
        "form": form or QuizSettingsForm(initial=initial, auto_id=f"id_{prefix}_%s"),
        "gold": quiz_gold_count(scope),
        "rows": quiz_selectors.quiz_results(scope),
    }


def _page(request: HttpRequest, campaign: Campaign, *, status: int = 200, bad=None) -> HttpResponse:
    scopes: list[Campaign | Comparison] = [campaign, *campaign.comparisons.order_by("name")]
    sections = [_section(s, bad[1] if bad and bad[0] == s else None) for s in scopes]
    context = {"campaign": campaign, "sections": sections}
    return render(request, "annotate/manage_quiz.html", context, status=status)


@login_required
@require_GET
def quiz_results(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, campaign_managed_by(request.user, slug))


@login_required
@require_POST
def quiz_settings(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = QuizSettingsForm(request.POST)
    try:  # the scope first: a bad form is shown in its own scope's section
        comparison_id = form.fields["comparison"].clean(request.POST.get("comparison") or None)
    except ValidationError:
        raise Http404("No such comparison") from None
    scope = _scope(campaign, comparison_id)
    if not form.is_valid():
        messages.error(request, _("The quiz settings were not changed: check the fields marked."))
        return _page(request, campaign, status=400, bad=(scope, form))
    data = form.cleaned_data
    try:
        quiz_settings_set(
            scope=scope,
            required=data["quiz_required"],
            items=data["quiz_items"],
            pass_percent=data["quiz_pass_percent"],
            attempts=data["quiz_attempts"],
        )
    except QuizRefused as refusal:
        messages.error(request, refusal.message)
        return _page(request, campaign, status=400)
    messages.success(request, _("The quiz settings are saved."))
    return redirect("annotate:manage_quiz", slug=slug)


@login_required
@require_POST
def quiz_grant_view(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = QuizGrantForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a rater to grant another attempt to."))
        return _page(request, campaign, status=400)
    scope = _scope(campaign, form.cleaned_data["comparison"])
    try:
        quiz_grant(scope=scope, rater_id=form.cleaned_data["rater"], manager=request.user)
    except QuizRefused as refusal:
        messages.error(request, refusal.message)
        return _page(request, campaign, status=refusal.status)
    messages.success(request, _("The rater has one more attempt."))
    return redirect("annotate:manage_quiz", slug=slug)
