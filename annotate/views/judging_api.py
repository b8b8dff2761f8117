"""JSON endpoints behind the judging pages of both kinds (static/js/judge.js, sxs.js): the
rater's queue, their progress, and one answer at a time.

Every answer is JSON, refusals included, so the client can always tell a refusal (show it,
move on) from a network failure (retry the same payload; the server takes it once). A session
that ended answers 401 instead of redirecting to the login page, so no answer is taken for
"sent" when it was not. Anyone who is not a rater of the campaign gets 404, as on the pages
(its existence is not revealed).

Each kind is a `Face`: how its URL names the scope, its form, and its screen's service calls
(annotate/judging/screens.py); the views below are written once for both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django import forms
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.http import require_http_methods

from annotate import inputs
from annotate.forms.judge import JudgeForm
from annotate.forms.sxs import VerdictForm
from annotate.judging.kinds import Outcome, Refused
from annotate.judging.screens import (
    judge_state,
    judgment_record,
    progress_state,
    sxs_progress_state,
    sxs_record,
    sxs_state,
)
from annotate.selectors_judge import campaign_rated_by
from annotate.selectors_sxs import comparison_rated_by


@dataclass(frozen=True)
class Face:
    """What the endpoints need to know of a kind."""

    scope_of: Callable[..., Any]  # (user, **URL arguments) -> scope; Http404 for a non-rater
    missing: str
    signed_out: str
    form: type[forms.Form]
    key: str  # the body's field naming the task, echoed in the answer
    record: Callable[..., Outcome]  # (rater=, scope, data=) -> Outcome
    state: Callable[..., tuple]  # (rater=, scope, progress=) -> (tasks, state)
    progress: Callable[..., dict]  # (rater=, scope) -> progress state
    # Whether an answer's reply carries the progress. Neither kind's does: counting scans the
    # pool (or the comparison's tasks), and was three quarters of a verdict's time; the pages
    # count their own answers and ask the progress endpoint once per query.
    answer_progress: bool


GRADED_FACE = Face(
    scope_of=campaign_rated_by,
    missing="No such campaign.",
    signed_out="You are signed out. Sign in again; your grades are kept.",
    form=JudgeForm,
    key="item",
    record=lambda *, rater, scope, data: judgment_record(rater=rater, campaign=scope, data=data),
    state=lambda *, rater, scope, progress: judge_state(
        rater=rater, campaign=scope, progress=progress
    ),
    progress=lambda *, rater, scope: progress_state(rater=rater, campaign=scope),
    answer_progress=False,
)
SXS_FACE = Face(
    scope_of=comparison_rated_by,
    missing="No such comparison.",
    signed_out="You are signed out. Sign in again; your verdicts are kept.",
    form=VerdictForm,
    key="task",
    record=lambda *, rater, scope, data: sxs_record(rater=rater, comparison=scope, data=data),
    state=lambda *, rater, scope, progress: sxs_state(
        rater=rater, comparison=scope, progress=progress
    ),
    progress=lambda *, rater, scope: sxs_progress_state(rater=rater, comparison=scope),
    answer_progress=False,
)


def refusal(message: str, status: int, **extra) -> JsonResponse:
    return JsonResponse({"ok": False, "error": message, **extra}, status=status)


def rater_endpoint(face: Face) -> Callable:
    """Sign-in and membership: 401 when signed out, 404 for anyone who is not a rater."""

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HttpRequest, **kwargs) -> JsonResponse:
            if not request.user.is_authenticated:
                return refusal(face.signed_out, 401)
            try:
                scope = face.scope_of(request.user, **kwargs)
            except Http404:
                return refusal(face.missing, 404)
            return view(request, face, scope)

        return wrapper

    return decorate


def _state(request: HttpRequest, face: Face, scope: Any, *, progress: bool) -> dict:
    return face.state(rater=request.user, scope=scope, progress=progress)[1]


def _queue(request: HttpRequest, face: Face, scope: Any) -> JsonResponse:
    """The tasks the rater holds now (leasing the next query when needed) and the progress."""
    return JsonResponse({"ok": True, **_state(request, face, scope, progress=True)})


def _progress(request: HttpRequest, face: Face, scope: Any) -> JsonResponse:
    """The rater's progress and the overall one, on their own: counting them is the slow
    part, so judge.js asks for it once per query, away from the answer it just sent."""
    return JsonResponse({"ok": True, **face.progress(rater=request.user, scope=scope)})


def _answer(request: HttpRequest, face: Face, scope: Any) -> JsonResponse:
    """Record one answer; reply with what comes next (the held tasks, the next prefetched).

    Body: the kind's form fields as JSON, e.g. {"item": id, "action": "label", "label": id,
    "comment": "", "seconds": 4.2} or {"task": id, "chosen": "left", "strength": 2,
    "reason": ""}. Sending the same body twice stores one answer.
    """
    try:
        body = inputs.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError):
        return refusal("The request body is not JSON.", 400)
    if not isinstance(body, dict):
        return refusal("The request body must be a JSON object.", 400)
    # shown_at is the no-JavaScript page's clock; JSON's null is a form's empty field.
    fields = {k: ("" if v is None else v) for k, v in body.items() if k != "shown_at"}
    form = face.form(fields)
    if not form.is_valid():
        return refusal(form.error_text() or "Invalid request.", 400)
    task = form.cleaned_data[face.key]
    try:
        outcome = face.record(rater=request.user, scope=scope, data=form.cleaned_data)
    except Refused as refused:
        state = _state(request, face, scope, progress=face.answer_progress)
        details = {face.key: task, **refused.details}
        return refusal(refused.message, refused.status, **details, **state)
    state = _state(request, face, scope, progress=face.answer_progress)
    return JsonResponse({"ok": True, "result": outcome.result, face.key: task, **state})


judge_queue = require_http_methods(["GET"])(rater_endpoint(GRADED_FACE)(_queue))
judge_progress = require_http_methods(["GET"])(rater_endpoint(GRADED_FACE)(_progress))
judge_answer = require_http_methods(["POST"])(rater_endpoint(GRADED_FACE)(_answer))
sxs_queue = require_http_methods(["GET"])(rater_endpoint(SXS_FACE)(_queue))
sxs_progress = require_http_methods(["GET"])(rater_endpoint(SXS_FACE)(_progress))
sxs_answer = require_http_methods(["POST"])(rater_endpoint(SXS_FACE)(_answer))
