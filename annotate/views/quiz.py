"""The rater's qualification quiz pages (annotate/services/quiz.py), for a campaign's graded
work and for a comparison's side-by-side work. Plain form posts (post, redirect, get): the
question is the judging screen of its kind in "quiz" mode, whose keys (judge.js, sxs.js on
judge-core.js) press the same buttons; after each answer a page says whether it matched
and, on a miss, shows the accepted answer and the manager's explanation.

Only raters of the campaign get in (404 for anyone else, as on the judging pages)."""

from __future__ import annotations

import time

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from annotate.judging.qualification import quiz_url
from annotate.models import Campaign, Comparison, GoldItem, GoldTask, PoolItem, QuizAnswer, SxsTask
from annotate.selectors_judge import Card, campaign_rated_by, item_payload, label_keys
from annotate.selectors_sxs import chosen_side, comparison_rated_by, task_payloads
from annotate.services.markdown import guidelines_html
from annotate.services.quiz import (
    QuizRefused,
    QuizStatus,
    candidate_side,
    next_position,
    quiz_answer,
    quiz_start,
    quiz_status,
)
from annotate.views.sxs import CHOICE_WORDS, STRENGTHS, base_context


@login_required
@require_http_methods(["GET", "POST"])
def quiz(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_rated_by(request.user, slug)
    return _quiz(request, campaign, "label")


@login_required
@require_http_methods(["GET", "POST"])
def sxs_quiz(request: HttpRequest, slug: str, comparison_id: int) -> HttpResponse:
    comparison = comparison_rated_by(request.user, slug, comparison_id)
    return _quiz(request, comparison, "chosen")


def _quiz(request: HttpRequest, scope: Campaign | Comparison, field: str) -> HttpResponse:
    if request.method == "POST":
        try:
            _post(request, scope, field)
        except QuizRefused as refusal:
            status = quiz_status(scope, request.user)
            return _page(request, scope, status, error=refusal.message, code=refusal.status)
        if "start" in request.POST:
            return redirect(quiz_url(scope))
        return redirect(f"{quiz_url(scope)}?feedback=1")
    status = quiz_status(scope, request.user)
    if request.GET.get("feedback"):
        answer = _last_answer(scope, request)
        if answer is not None:
            return _feedback(request, scope, answer, status)
    return _page(request, scope, status)


def _post(request: HttpRequest, scope: Campaign | Comparison, field: str) -> None:
    if "start" in request.POST:
        quiz_start(scope, request.user)
        return
    shown_at = _float(request.POST.get("shown_at"))
    seconds = time.time() - shown_at if shown_at else None
    quiz_answer(
        scope=scope,
        rater=request.user,
        position=request.POST.get("position"),
        choice=request.POST.get(field),
        seconds=seconds,
    )


def _float(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) < 1e12 else None


def _last_answer(scope: Campaign | Comparison, request: HttpRequest) -> QuizAnswer | None:
    """The rater's latest quiz answer in this scope: what the feedback page is about."""
    fields = {"attempt__rater": request.user, "attempt__campaign_id": _campaign_id(scope)}
    fields["attempt__comparison"] = scope if isinstance(scope, Comparison) else None
    return QuizAnswer.objects.filter(**fields).order_by("-created_at", "-pk").first()


def _campaign_id(scope: Campaign | Comparison) -> int:
    return scope.campaign_id if isinstance(scope, Comparison) else scope.pk


def _campaign(scope: Campaign | Comparison) -> Campaign:
    return scope.campaign if isinstance(scope, Comparison) else scope


def _page(
    request: HttpRequest,
    scope: Campaign | Comparison,
    status: QuizStatus,
    *,
    error: str = "",
    code: int = 200,
) -> HttpResponse:
    """The question under way, or the quiz's front page (start, or the last result)."""
    attempt = status.current
    position = next_position(attempt) if attempt else None
    if attempt is None or position is None:
        context = _front_context(scope, status, error)
        return render(request, "annotate/quiz.html", context, status=code)
    common = {
        "mode": "quiz",
        "position": position,
        "question": position + 1,
        "answered": position,
        "total": attempt.total,
        "form_action": quiz_url(scope),
        "shown_at": f"{time.time():.3f}",
        "error": error,
        "js_state": None,
        "guidelines_open": False,
    }
    task_id = attempt.drawn[position]
    if isinstance(scope, Comparison):
        return _sxs_question(request, scope, task_id, common, code)
    return _graded_question(request, scope, task_id, common, code)


def _graded_question(
    request: HttpRequest, campaign: Campaign, item_id: int, common: dict, code: int
) -> HttpResponse:
    item = PoolItem.objects.select_related("query", "document").filter(pk=item_id).first()
    if item is None:
        raise Http404("No such item")
    card = Card.of(campaign)
    context = {
        **common,
        "campaign": campaign,
        "item": item_payload(item, request.user, card),
        "card": card.parts,
        "highlight": card.highlight,
        "labels": label_keys(campaign),
        "guidelines": guidelines_html(request, campaign),
    }
    return render(request, "annotate/judge.html", context, status=code)


def _sxs_question(
    request: HttpRequest, comparison: Comparison, task_id: int, common: dict, code: int
) -> HttpResponse:
    task = SxsTask.objects.select_related("query").filter(pk=task_id).first()
    if task is None:
        raise Http404("No such task")
    side = candidate_side(comparison, request.user, task.pk)
    context = base_context(request, comparison, error=common["error"])
    context.update(common)
    context.update(
        task=task_payloads(comparison, [(task, side)], request.user)[0],
        strengths=STRENGTHS,
        progress=None,
    )
    return render(request, "annotate/sxs_judge.html", context, status=code)


def _front_context(scope: Campaign | Comparison, status: QuizStatus, error: str) -> dict:
    is_sxs = isinstance(scope, Comparison)
    if is_sxs:
        work_url = reverse("annotate:sxs", args=[scope.campaign.slug, scope.pk])
    else:
        work_url = reverse("annotate:judge", args=[scope.slug])
    return {
        "campaign": _campaign(scope),
        "scope": scope,
        "status": status,
        "last": status.last,
        "error": error,
        "form_action": quiz_url(scope),
        "work_url": work_url,
        "can_start": not status.passed and status.left > 0,
    }


def _feedback(
    request: HttpRequest, scope: Campaign | Comparison, answer: QuizAnswer, status: QuizStatus
) -> HttpResponse:
    """Whether the answer matched; on a miss the accepted answer, in the rater's own terms
    (their sides), and the manager's explanation."""
    if isinstance(scope, Comparison):
        gold = GoldTask.objects.filter(task_id=answer.task_id).first()
        side = candidate_side(scope, request.user, answer.task_id)
        accepted = [str(CHOICE_WORDS[chosen_side(gold.value, side)])] if gold else []
        yours = str(CHOICE_WORDS.get(answer.chosen, ""))
    else:
        gold = GoldItem.objects.filter(pool_item_id=answer.pool_item_id).first()
        labels = gold.accepted.order_by("position", "pk") if gold else []
        accepted = [label.name for label in labels]
        yours = answer.label.name if answer.label else ""
    attempt = answer.attempt
    context = {
        "campaign": _campaign(scope),
        "answer": answer,
        "yours": yours,
        "accepted": accepted,
        "explanation": gold.explanation if gold and not answer.correct else "",
        "finished": attempt.finished_at is not None,
        "continue_url": quiz_url(scope),
        "question": answer.position + 1,
        "total": attempt.total,
    }
    return render(request, "annotate/quiz_feedback.html", context)
