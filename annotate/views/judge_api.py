"""JSON endpoints behind static/js/judge.js.

Every answer is JSON, refusals included, so the client can always tell a refusal (show it,
move on) from a network failure (retry the same payload; the server takes it once). A session
that ended answers 401 instead of redirecting to the login page, so no grade is taken for
"sent" when it was not.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.http import require_http_methods

from annotate import inputs
from annotate.forms.judge import JudgeForm
from annotate.models import Campaign
from annotate.selectors_judge import campaign_rated_by
from annotate.services.judging import judge_state, judgment_record, progress_state
from annotate.services.queue import GradeRefused


def refusal(message: str, status: int, **extra) -> JsonResponse:
    return JsonResponse({"ok": False, "error": message, **extra}, status=status)


def rater_endpoint(view: Callable) -> Callable:
    """Sign-in and membership for the API: 401 when signed out, 404 for anyone who is not a
    rater of the campaign (its existence is not revealed)."""

    @wraps(view)
    def wrapper(request: HttpRequest, slug: str) -> JsonResponse:
        if not request.user.is_authenticated:
            return refusal("You are signed out. Sign in again; your grades are kept.", 401)
        try:
            campaign = campaign_rated_by(request.user, slug)
        except Http404:
            return refusal("No such campaign.", 404)
        return view(request, campaign)

    return wrapper


def _state(request: HttpRequest, campaign: Campaign, *, progress: bool) -> dict:
    return judge_state(rater=request.user, campaign=campaign, progress=progress)[1]


@require_http_methods(["GET"])
@rater_endpoint
def queue(request: HttpRequest, campaign: Campaign) -> JsonResponse:
    """The items the rater holds now (leasing the next query when needed) and the progress."""
    return JsonResponse({"ok": True, **_state(request, campaign, progress=True)})


@require_http_methods(["GET"])
@rater_endpoint
def progress(request: HttpRequest, campaign: Campaign) -> JsonResponse:
    """The rater's progress and the campaign's, on their own: counting them is the slow part,
    so judge.js asks for it once per query, away from the grade it just sent."""
    return JsonResponse({"ok": True, **progress_state(rater=request.user, campaign=campaign)})


@require_http_methods(["POST"])
@rater_endpoint
def judgments(request: HttpRequest, campaign: Campaign) -> JsonResponse:
    """Record one grade, can't-judge or skip; answer with what comes next.

    Body: {"item": id, "action": "label"|"cant_judge"|"skip", "label": id, "comment": "",
    "seconds": 4.2}. Sending the same body twice stores one grade. The answer carries the
    held items, the next ones prefetched; progress comes from the progress endpoint.
    """
    try:
        body = inputs.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError):
        return refusal("The request body is not JSON.", 400)
    if not isinstance(body, dict):
        return refusal("The request body must be a JSON object.", 400)
    form = JudgeForm({key: value for key, value in body.items() if key != "shown_at"})
    if not form.is_valid():
        return refusal(form.error_text() or "Invalid request.", 400)
    data = form.cleaned_data
    try:
        result = judgment_record(
            rater=request.user,
            campaign=campaign,
            item_id=data["item"],
            action=data["action"],
            label_id=data.get("label"),
            comment=data.get("comment") or "",
            seconds=data.get("seconds"),
        )
    except GradeRefused as refused:
        state = _state(request, campaign, progress=False)
        return refusal(refused.message, refused.status, item=data["item"], **state)
    state = _state(request, campaign, progress=False)
    return JsonResponse({"ok": True, "result": result, "item": data["item"], **state})
