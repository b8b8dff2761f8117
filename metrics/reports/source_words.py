"""The label sources as the report page names and explains them, in the reader's language
(issue 20). The stored keys and parameters, and the CSV downloads built from them, stay as they
are: `raters`, `clicks:w`, a source's `params`."""

from __future__ import annotations

from django.utils.translation import gettext as _

from annotate.models.labels import SourceKind
from metrics.reports.presenting import rule_name
from metrics.services.label_sources import RATERS, SourcesReport, SourceSummary


def display_names(report: SourcesReport) -> dict[str, str]:
    """Each source's name on the page: the raters' aggregate names its rule, the others are
    named as their manager named them."""
    return {
        s.key: _("Raters (%(rule)s)") % {"rule": rule_name(report.rule)}
        if s.key == RATERS
        else s.key
        for s in report.sources
    }


def kind_label(kind: str) -> str:
    if kind == RATERS:
        return _("raters")
    return str(SourceKind(kind).label) if kind in SourceKind.values else kind


def _match_words(match: str) -> str:
    return {
        "auto": _("by URL when the value has a scheme, else by document id"),
        "id": _("by document id"),
        "url": _("by normalised URL"),
    }.get(match, match)


def describe(source: SourceSummary) -> str:
    """How a source's labels were made, in one line, from its stored parameters."""
    p = source.params
    if source.kind == RATERS:
        return _("the raters' grades, aggregated")
    if source.kind == "competitor" and "bands_text" in p:
        return _(
            "rank bands %(bands)s; documents matched %(match)s; %(unmatched)s of %(lines)s "
            "lines unmatched, %(other)s for other queries"
        ) % {
            "bands": p["bands_text"],
            "match": _match_words(p["match"]),
            "unmatched": f"{p['unmatched_lines']:,}",
            "lines": f"{p['lines']:,}",
            "other": f"{p['unknown_query_lines']:,}",
        }
    if source.kind == "clicks" and "thresholds" in p:
        return _describe_clicks(p)
    if source.kind == "model" and "model" in p:
        return _describe_model(p)
    if source.kind == "purchases" and "bought_grade" in p:
        return _(
            "purchases from log %(log)s: bought %(bought)s, shown and not bought %(not_bought)s"
        ) % {
            "log": repr(p["log"]),
            "bought": f"{p['bought_grade']:g}",
            "not_bought": f"{p['not_bought_grade']:g}",
        }
    if p.get("file"):
        return _("imported from %(file)s") % {"file": p["file"]}
    return _("imported")


def _describe_model(p: dict) -> str:
    values = {
        "model": p["model"],
        "endpoint": p["endpoint"],
        "temperature": f"{p['temperature']:g}",
        "samples": p.get("samples", 1),
        "rule": rule_name(p.get("rule")),
        "labelled": f"{p['labelled']:,}",
        "items": f"{p['items']:,}",
        "no_answer": f"{p['no_answer']:,}",
        "failed": f"{p['failed']:,}",
        "stopped": p.get("stopped") or "",
    }
    if p.get("samples", 1) > 1:
        text = _(
            "language model %(model)s at %(endpoint)s (temperature %(temperature)s, "
            "%(samples)s samples by %(rule)s): %(labelled)s of %(items)s items labelled, "
            "%(no_answer)s unreadable answers, %(failed)s failed"
        )
    else:
        text = _(
            "language model %(model)s at %(endpoint)s (temperature %(temperature)s): "
            "%(labelled)s of %(items)s items labelled, %(no_answer)s unreadable answers, "
            "%(failed)s failed"
        )
    text = text % values
    if p.get("stopped"):
        return _("%(text)s; stopped early: %(stopped)s") % {"text": text, "stopped": p["stopped"]}
    return text


def _describe_clicks(p: dict) -> str:
    steps = ", ".join(
        _("ratio ≥ %(ratio)s: %(grade)s")
        % {"ratio": f"{t['ratio_at_least']:g}", "grade": f"{t['grade']:g}"}
        for t in p["thresholds"]
    )
    steps = _("%(steps)s, else %(grade)s") % {
        "steps": steps,
        "grade": f"{p['below_last_threshold_grade']:g}",
    }
    if p.get("model") != "pbm":
        return _(
            "clicks over expected clicks from log %(log)s: %(steps)s; at least %(n)s impressions"
        ) % {"log": repr(p["log"]), "steps": steps, "n": p["min_impressions"]}
    return _(
        "clicks over expected clicks from log %(log)s (position-based click model; expected: "
        "an average document of the query in the same places; shrunk toward the query's mean "
        "with k = %(k)s): %(steps)s; %(little)s of %(pairs)s pairs had fewer than %(min)s "
        "expected clicks: too little data, not labelled"
    ) % {
        "log": repr(p["log"]),
        "k": f"{p['prior_strength']:.3g}",
        "steps": steps,
        "little": f"{p['too_little_data']:,}",
        "pairs": f"{p['pairs']:,}",
        "min": f"{p['min_expected_clicks']:g}",
    }
