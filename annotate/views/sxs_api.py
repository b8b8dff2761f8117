"""JSON endpoints behind static/js/sxs.js.

Every answer is JSON, refusals included, so the client can tell a refusal (show it, move on)
from a network failure (retry the same payload; the server takes it once). A session that ended
answers 401 instead of redirecting to the login page. Anyone who is not a rater of the campaign
gets 404, as on the pages.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.http import require_http_methods

from annotate import inputs
from annotate.forms.sxs import VerdictForm
from annotate.models import Comparison
from annotate.selectors_sxs import comparison_rated_by
from annotate.services.sxs import VerdictRefused
from annotate.services.sxs_judging import sxs_record, sxs_state


def refusal(message: str, status: int, **extra) -> JsonResponse:
    return JsonResponse({"ok": False, "error": message, **extra}, status=status)


def sxs_endpoint(view: Callable) -> Callable:
    @wraps(view)
    def wrapper(request: HttpRequest, slug: str, comparison_id: int) -> JsonResponse:
        if not request.user.is_authenticated:
            return refusal("You are signed out. Sign in again; your verdicts are kept.", 401)
        try:
            comparison = comparison_rated_by(request.user, slug, comparison_id)
        except Http404:
            return refusal("No such comparison.", 404)
        return view(request, comparison)

    return wrapper


def _state(request: HttpRequest, comparison: Comparison) -> dict:
    return sxs_state(rater=request.user, comparison=comparison)[1]


@require_http_methods(["GET"])
@sxs_endpoint
def queue(request: HttpRequest, comparison: Comparison) -> JsonResponse:
    """The tasks the rater holds now (leasing the next query when needed) and the progress."""
    return JsonResponse({"ok": True, **_state(request, comparison)})


@require_http_methods(["POST"])
@sxs_endpoint
def verdicts(request: HttpRequest, comparison: Comparison) -> JsonResponse:
    """Record one verdict; answer with what comes next.

    Body: {"task": id, "chosen": "left"|"same"|"right", "strength": 1-3 or null,
    "reason": "", "seconds": 4.2}. Sending the same body twice stores one verdict.
    """
    try:
        body = inputs.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError):
        return refusal("The request body is not JSON.", 400)
    if not isinstance(body, dict):
        return refusal("The request body must be a JSON object.", 400)
    fields = {k: ("" if v is None else v) for k, v in body.items() if k != "shown_at"}
    form = VerdictForm(fields)
    if not form.is_valid():
        return refusal(form.error_text() or "Invalid request.", 400)
    data = form.cleaned_data
    try:
        result = sxs_record(
            rater=request.user,
            comparison=comparison,
            task_id=data["task"],
            chosen=data["chosen"],
            strength=data.get("strength"),
            reason=data.get("reason") or "",
            seconds=data.get("seconds"),
        )
    except VerdictRefused as refused:
        return refusal(
            refused.message, refused.status, task=data["task"], **_state(request, comparison)
        )
    return JsonResponse(
        {"ok": True, "result": result, "task": data["task"], **_state(request, comparison)}
    )
