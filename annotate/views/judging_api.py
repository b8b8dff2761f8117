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
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods

from annotate import inputs
from annotate.forms.judge import JudgeForm
from annotate.forms.sxs import VerdictForm
from annotate.judging.kinds import Outcome, Refused
from annotate.judging.leasing import PAUSED_MESSAGE
from annotate.judging.qualification import quiz_blocks, quiz_needed_message, quiz_url
from annotate.judging.screens import (
    judge_state,
    judgment_record,
    progress_state,
    sxs_progress_state,
    sxs_record,
    sxs_state,
)
from annotate.selectors_judge import campaign_rated_by, rater_paused
from annotate.selectors_sxs import comparison_rated_by


@dataclass(frozen=True)
class Face:
    """What the endpoints need to know of a kind."""

    scope_of: Callable[..., Any]  # (user, **URL arguments) -> scope; Http404 for a non-rater
    missing: str | Promise
    signed_out: str | Promise
    form: type[forms.Form]
    key: str  # the body's field naming the task, echoed in the answer
    record: Callable[..., Outcome]  # (rater=, scope, data=) -> Outcome
    state: Callable[..., tuple]  # (rater=, scope, progress=, known=) -> (tasks, state)
    progress: Callable[..., dict]  # (rater=, scope) -> progress state
    # Whether an answer's reply carries the progress. Neither kind's does: counting scans the
    # pool (or the comparison's tasks), and was three quarters of a verdict's time; the pages
    # count their own answers and ask the progress endpoint once per query.
    answer_progress: bool


GRADED_FACE = Face(
    scope_of=campaign_rated_by,
    missing=gettext_lazy("No such campaign."),
    signed_out=gettext_lazy("You are signed out. Sign in again; your grades are kept."),
    form=JudgeForm,
    key="item",
    record=lambda *, rater, scope, data: judgment_record(rater=rater, campaign=scope, data=data),
    state=lambda *, rater, scope, progress, known=frozenset(): judge_state(
        rater=rater, campaign=scope, progress=progress, known=known
    ),
    progress=lambda *, rater, scope: progress_state(rater=rater, campaign=scope),
    answer_progress=False,
)
SXS_FACE = Face(
    scope_of=comparison_rated_by,
    missing=gettext_lazy("No such comparison."),
    signed_out=gettext_lazy("You are signed out. Sign in again; your verdicts are kept."),
    form=VerdictForm,
    key="task",
    record=lambda *, rater, scope, data: sxs_record(rater=rater, comparison=scope, data=data),
    state=lambda *, rater, scope, progress, known=frozenset(): sxs_state(
        rater=rater, comparison=scope, progress=progress, known=known
    ),
    progress=lambda *, rater, scope: sxs_progress_state(rater=rater, comparison=scope),
    answer_progress=False,
)


def refusal(message: str, status: int, **extra) -> JsonResponse:
    return JsonResponse({"ok": False, "error": str(message), **extra}, status=status)


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
            if rater_paused(getattr(scope, "campaign", scope)):
                return refusal(str(PAUSED_MESSAGE), 403, paused=True)
            if quiz_blocks(scope, request.user):
                # No real work before the quiz: the page goes there (the reply names it).
                return refusal(quiz_needed_message(), 403, quiz=quiz_url(scope))
            return view(request, face, scope)

        return wrapper

    return decorate


def _state(
    request: HttpRequest, face: Face, scope: Any, *, progress: bool, known=frozenset()
) -> dict:
    return face.state(rater=request.user, scope=scope, progress=progress, known=known)[1]


MAX_KNOWN = 500


def _known(value: object) -> frozenset[str]:
    """The handles the page holds already (an answer's optional `known`): the reply sends
    those as their handle alone. Raises ValueError for anything but a short list of text."""
    if value is None:
        return frozenset()
    if not isinstance(value, list) or len(value) > MAX_KNOWN:
        raise ValueError
    if not all(isinstance(handle, str) and len(handle) <= 64 for handle in value):
        raise ValueError
    return frozenset(value)


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
    except RequestDataTooBig:
        # Django reads at most DATA_UPLOAD_MAX_MEMORY_SIZE into request.body; a JSON answer,
        # not Django's HTML 400, so the page can show it.
        return refusal(gettext("The request body is too large."), 413)
    except inputs.BadInput as exc:
        # Says which: NaN, a huge number, NUL, a lone surrogate, deep nesting, bad syntax.
        return refusal(gettext("The request body is not usable JSON: %(why)s") % {"why": exc}, 400)
    if not isinstance(body, dict):
        return refusal(gettext("The request body must be a JSON object."), 400)
    try:
        known = _known(body.pop("known", None))
    except ValueError:
        message = gettext("“known” must be a list of at most %(n)s of your task names.")
        return refusal(message % {"n": MAX_KNOWN}, 400)
    # shown_at is the no-JavaScript page's clock; JSON's null is a form's empty field.
    fields = {k: ("" if v is None else v) for k, v in body.items() if k != "shown_at"}
    form = face.form(fields)
    if not form.is_valid():
        return refusal(form.error_text() or gettext("Invalid request."), 400)
    task = form.cleaned_data[face.key]
    try:
        outcome = face.record(rater=request.user, scope=scope, data=form.cleaned_data)
    except Refused as refused:
        details = {face.key: task, **refused.details}
        if refused.details.get("paused"):
            return refusal(refused.message, refused.status, **details)
        state = _state(request, face, scope, progress=face.answer_progress, known=known)
        return refusal(refused.message, refused.status, **details, **state)
    try:
        state = _state(request, face, scope, progress=face.answer_progress, known=known)
    except Refused as refused:
        # The answer is stored, and a rule paused the rater on it: no next task (#18).
        details = {face.key: task, "result": outcome.result, **refused.details}
        return refusal(refused.message, refused.status, **details)
    return JsonResponse({"ok": True, "result": outcome.result, face.key: task, **state})


judge_queue = require_http_methods(["GET"])(rater_endpoint(GRADED_FACE)(_queue))
judge_progress = require_http_methods(["GET"])(rater_endpoint(GRADED_FACE)(_progress))
judge_answer = require_http_methods(["POST"])(rater_endpoint(GRADED_FACE)(_answer))
sxs_queue = require_http_methods(["GET"])(rater_endpoint(SXS_FACE)(_queue))
sxs_progress = require_http_methods(["GET"])(rater_endpoint(SXS_FACE)(_progress))
sxs_answer = require_http_methods(["POST"])(rater_endpoint(SXS_FACE)(_answer))
