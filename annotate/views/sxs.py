"""The rater's side-by-side pages. Each works as a plain form post (post, redirect, get);
static/js/sxs.js takes the queue page over when JavaScript runs (see judging_api.py).

Only raters of the campaign get in (404 for anyone else). The pages are blind: they name the
comparison "Side-by-side n", never by its name, and show Left and Right only.
"""

from __future__ import annotations

import time

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from annotate.forms.sxs import VerdictForm
from annotate.judging import handles
from annotate.judging.open import legacy_held_ids
from annotate.judging.progress import rater_sxs_progress
from annotate.judging.qualification import quiz_blocks, quiz_needed_message, quiz_url
from annotate.judging.screens import (
    answer_token,
    overall_progress,
    sxs_record,
    sxs_state,
    task_of,
)
from annotate.judging.sxs import SXS, VerdictRefused
from annotate.models import Comparison, SxsTask, TaskSkip, Verdict
from annotate.selectors_judge import Card, rater_paused
from annotate.selectors_sxs import (
    chosen_side,
    comparison_managed_by,
    comparison_rated_by,
    last_verdict_task_id,
    rater_label,
    rater_sxs_history,
    side_for,
    task_payloads,
    task_seen_by,
)
from annotate.services.markdown import guidelines_html
from annotate.views.judge import paused_page

STRENGTHS = [(1, gettext_lazy("Slightly")), (2, gettext_lazy("Clearly")), (3, gettext_lazy("Much"))]
# The strength inside an answer: "Right better (clearly)".
STRENGTHS_IN_ANSWER = {
    1: gettext_lazy("slightly"),
    2: gettext_lazy("clearly"),
    3: gettext_lazy("much"),
}
CHOICE_WORDS = {
    "left": gettext_lazy("Left better"),
    "right": gettext_lazy("Right better"),
    "same": gettext_lazy("About the same"),
    "cant_judge": gettext_lazy("Can't judge"),
}


def answer_words(chosen: str, strength: int | None) -> str:
    """A rater's own answer in the words of the buttons ("Right better (clearly)")."""
    words = str(CHOICE_WORDS.get(chosen, ""))
    if strength and chosen in ("left", "right"):
        how = STRENGTHS_IN_ANSWER[strength]
        words = _("%(answer)s (%(strength)s)") % {"answer": words, "strength": how}
    return words


@login_required
@require_http_methods(["GET", "POST"])
def sxs_queue_view(request: HttpRequest, slug: str, comparison_id: int) -> HttpResponse:
    """The queue: the next task the rater holds, or "All done". A manager of the campaign who
    is not one of its raters is shown the read-only preview instead of a bare 404 (#21)."""
    try:
        comparison = comparison_rated_by(request.user, slug, comparison_id)
    except Http404:
        if request.method != "GET":
            raise
        comparison_managed_by(request.user, slug, comparison_id)  # 404 for anyone else
        return redirect("annotate:sxs_preview", slug=slug, comparison_id=comparison_id)
    if rater_paused(comparison.campaign):
        return paused_page(request, comparison.campaign)
    if quiz_blocks(comparison, request.user):
        messages.info(request, quiz_needed_message())
        return redirect(quiz_url(comparison))
    if request.method == "POST":
        form = VerdictForm(request.POST)
        if not form.is_valid():
            return _queue_page(request, comparison, error=form.error_text(), status=400)
        try:
            _record(request, comparison, form)
        except VerdictRefused as refusal:
            return _queue_page(request, comparison, error=refusal.message, status=refusal.status)
        return redirect(_queue_url(comparison))
    return _queue_page(request, comparison)


@login_required
@require_http_methods(["GET", "POST"])
def sxs_task_view(request: HttpRequest, slug: str, comparison_id: int, handle: str) -> HttpResponse:
    """One task the rater answered (or holds): see it as it was shown, and change the verdict.
    The URL names it by the rater's handle (screens.task_of)."""
    comparison = comparison_rated_by(request.user, slug, comparison_id)
    task_id = task_of(request.user, handle)
    if task_id is None:
        raise Http404("No such task")
    task = task_seen_by(comparison=comparison, rater=request.user, task_id=task_id)
    if request.method == "POST":
        data = request.POST.copy()
        data["task"] = handle  # the URL names the task; a posted one cannot redirect it
        form = VerdictForm(data)
        if not form.is_valid():
            return _task_page(request, comparison, task, error=form.error_text(), status=400)
        try:
            result = _record(request, comparison, form)
        except VerdictRefused as refusal:
            return _task_page(
                request, comparison, task, error=refusal.message, status=refusal.status
            )
        if result == "changed":
            messages.success(request, _("Your verdict was changed; the earlier one is kept."))
        elif result == "unskipped":
            messages.success(request, _("The skip is undone."))
        return redirect(_queue_url(comparison))
    return _task_page(request, comparison, task)


def _record(request: HttpRequest, comparison: Comparison, form: VerdictForm) -> str:
    data = form.cleaned_data
    return sxs_record(rater=request.user, comparison=comparison, data=data).result


def _queue_url(comparison: Comparison) -> str:
    return reverse(
        "annotate:sxs", kwargs={"slug": comparison.campaign.slug, "comparison_id": comparison.pk}
    )


@login_required
@require_http_methods(["GET"])
def sxs_history(request: HttpRequest, slug: str, comparison_id: int) -> HttpResponse:
    """The rater's own answers in a comparison, can't-judge and skips included, each with a
    way to change it (or undo the skip)."""
    comparison = comparison_rated_by(request.user, slug, comparison_id)
    history = rater_sxs_history(comparison=comparison, rater=request.user)
    # Each task named by the rater's handle, never its id (#24).
    for row in (*history["verdicts"], *history["skips"]):
        row.handle = handles.handle_for(request.user.pk, handles.SXS, row.task_id)
    for verdict in history["verdicts"]:
        verdict.words = answer_words(verdict.chosen, verdict.strength)
        for old in verdict.history.all():
            old.words = answer_words(old.chosen, old.strength)
    context = {
        **history,
        "campaign": comparison.campaign,
        "comparison": comparison,
        "label": rater_label(comparison),
        "queue_url": _queue_url(comparison),
        "progress": rater_sxs_progress(
            rater=request.user, comparison=comparison, now=timezone.now()
        ),
    }
    return render(request, "annotate/sxs_history.html", context)


def _task_url(comparison: Comparison, rater: AbstractBaseUser, task_id: int) -> str:
    kwargs = {
        "slug": comparison.campaign.slug,
        "comparison_id": comparison.pk,
        "handle": handles.handle_for(rater.pk, handles.SXS, task_id),
    }
    return reverse("annotate:sxs_task", kwargs=kwargs)


def _legacy_key(rater: AbstractBaseUser, comparison: Comparison) -> dict:
    """The outbox key pages used before handles and the handles of the tasks held then, while
    such leases remain (see judge._legacy_key)."""
    ids = legacy_held_ids(SXS, scope=comparison, rater=rater)
    if not ids:
        return {}
    slug = comparison.campaign.slug
    return {
        "legacyStorageKey": f"sxs-outbox:{slug}:{comparison.pk}:{rater.pk}",
        "legacyIds": {str(pk): handles.handle_for(rater.pk, handles.SXS, pk) for pk in ids},
    }


def base_context(request, comparison, *, error: str, overall: dict | None = None) -> dict:
    """What every side-by-side page shows; `overall` when the caller counted it already."""
    card = Card.of(comparison.campaign)
    return {
        "card": card.parts,
        "highlight": card.highlight,
        "campaign": comparison.campaign,
        "comparison_id": comparison.pk,
        "label": rater_label(comparison),
        "queue_url": _queue_url(comparison),
        "overall": overall if overall is not None else overall_progress(comparison),
        "strengths": STRENGTHS,
        "guidelines": guidelines_html(request, comparison.campaign),
        "shown_at": f"{time.time():.3f}",
        "error": error,
    }


def _queue_page(
    request: HttpRequest, comparison: Comparison, *, error: str = "", status: int = 200
) -> HttpResponse:
    held, state = sxs_state(rater=request.user, comparison=comparison)
    context = base_context(request, comparison, error=error, overall=state["overall"])
    context["progress"] = state["progress"]
    if not held:
        return render(request, "annotate/sxs_done.html", context, status=status)
    back_id = last_verdict_task_id(comparison=comparison, rater=request.user)
    slug, pk = comparison.campaign.slug, comparison.pk
    context.update(
        mode="queue",
        task=state["tasks"][0],
        back_url=_task_url(comparison, request.user, back_id) if back_id else "",
        form_action=_queue_url(comparison),
        guidelines_open=state["progress"]["done"] == 0,
        js_state={
            **state,
            "urls": {
                "api": reverse("annotate:sxs_api", kwargs={"slug": slug, "comparison_id": pk}),
                "queue": reverse(
                    "annotate:sxs_api_queue", kwargs={"slug": slug, "comparison_id": pk}
                ),
                "progress": reverse(
                    "annotate:sxs_api_progress", kwargs={"slug": slug, "comparison_id": pk}
                ),
                "done": _queue_url(comparison),
            },
            # Verdicts waiting to be sent survive a reload in this browser, per rater (a
            # keyed hash: the page names neither the rater nor a task by id).
            "storageKey": handles.storage_key("sxs-outbox", request.user.pk, slug, pk),
            **_legacy_key(request.user, comparison),
        },
    )
    return render(request, "annotate/sxs_judge.html", context, status=status)


def _task_page(
    request: HttpRequest,
    comparison: Comparison,
    task: SxsTask,
    *,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    side = side_for(rater=request.user, task=task)
    verdict = Verdict.objects.filter(task=task, rater=request.user).first()
    chosen = chosen_side(verdict.value, verdict.candidate_side) if verdict else ""
    skipped = verdict is None and TaskSkip.objects.filter(task=task, rater=request.user).exists()
    context = base_context(request, comparison, error=error)
    context.update(
        mode="change",
        task=task_payloads(comparison, [(task, side)], request.user)[0],
        verdict=verdict,
        chosen=chosen,
        skipped=skipped,
        # What this page shows as stored: a change sent from it replaces exactly that.
        replaces=answer_token(SXS, verdict, skipped),
        answer_text=answer_words(chosen, verdict.strength if verdict else None),
        progress=rater_sxs_progress(rater=request.user, comparison=comparison, now=timezone.now()),
        back_url=_queue_url(comparison),
        form_action=_task_url(comparison, request.user, task.pk),
        guidelines_open=False,
        js_state=None,
    )
    return render(request, "annotate/sxs_judge.html", context, status=status)
