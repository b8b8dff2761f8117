"""Adding a label source without raters from the manager's report page: a competitor's ranking,
a behaviour log, or labels derived from a log. One entry point, so the page's view only
validates its form and calls this (the command line calls the same import functions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext as _

from annotate.models import Campaign
from annotate.services.imports.common import Progress
from annotate.services.labels.clicks import DEFAULT_MIN_EXPECTED_CLICKS, derive_clicks
from annotate.services.labels.competitor import import_competitor
from annotate.services.labels.logs import import_log
from annotate.services.labels.purchases import derive_purchases

ADD_ACTIONS = ("competitor", "log", "derive")


def label_source_add(
    *, campaign: Campaign, action: str, data: dict[str, Any], progress: Progress | None = None
) -> Any:
    """Run one of ADD_ACTIONS with a form's cleaned data (an uploaded file under "file") and
    return the import's summary. Raises ImportFailed or ValueError, storing nothing, on bad
    input; ValueError for an unknown action."""
    if action not in _ACTIONS:
        raise ValueError(
            _("unknown action %(action)s: use one of %(names)s")
            % {"action": repr(action), "names": ", ".join(ADD_ACTIONS)}
        )
    return _ACTIONS[action](campaign, data, progress)


def _competitor(campaign: Campaign, data: dict[str, Any], progress: Progress | None):
    upload = data["file"]
    return import_competitor(
        campaign=campaign, file=upload, filename=upload.name, name=data["name"],
        bands=data["bands"], match=data["match"], replace=data["replace"], progress=progress,
    )  # fmt: skip


def _log(campaign: Campaign, data: dict[str, Any], progress: Progress | None):
    upload = data["file"]
    return import_log(
        campaign=campaign, file=upload, filename=upload.name, name=data["name"],
        match=data["match"], replace=data["replace"], progress=progress,
    )  # fmt: skip


def _derive(campaign: Campaign, data: dict[str, Any], progress: Progress | None):
    log, name = data["log"], data["name"] or data["log"].name
    if data["method"] == "clicks":
        floor = data["min_expected_clicks"]
        return derive_clicks(
            log=log, name=name, thresholds=data["thresholds"], replace=data["replace"],
            min_expected_clicks=DEFAULT_MIN_EXPECTED_CLICKS if floor is None else floor,
        )  # fmt: skip
    return derive_purchases(
        log=log, name=name, min_impressions=data["min_impressions"] or 1, replace=data["replace"]
    )


_ACTIONS: dict[str, Callable[[Campaign, dict[str, Any], Progress | None], Any]] = {
    "competitor": _competitor,
    "log": _log,
    "derive": _derive,
}
