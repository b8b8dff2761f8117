"""Scores for the API: any measure of the engine, per system and per query, with where the
numbers came from and how old they are.

The report's snapshots (metrics.services.snapshots.scores_snapshot) hold NDCG@k, MAP, P@k, MRR,
ERR@k and judged@k for one k, gain, discount and ideal. A request those cover is answered from the
snapshot (recomputed first if the judgments or runs changed since), with its age. Any other
measure (recall.100, bpref, a gain map, several cut-offs) is computed on request by the same
adapters and engine, through the same evaluation loop (metrics.services.scores), and says so
(``snapshot: null``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone

from annotate.models import Campaign, LabelSource
from metrics.adapters.campaign import campaign_qrels, campaign_runs, vocabulary
from metrics.core import parse_measures
from metrics.core.measures import parse_gain_map
from metrics.services.scores import MAX_K, MeasureSettings, check_setting, evaluate_on_request
from metrics.services.snapshots import scores_snapshot

# Cut-offs above this are refused: the engine allocates per-rank arrays of that size.
MAX_API_CUTOFF = 1000
_K_FREE = {"map", "recip_rank"}
_WITH_K = re.compile(r"(ndcg_cut|P|err_cut|judged)_(\d+)")


@dataclass
class Scores:
    names: list[str]  # engine output names, in printing order
    qids: list[str]
    systems: list[dict]
    per_query: dict[int, dict[str, list[float]]]  # run id -> name -> values aligned with qids
    basis: dict
    snapshot: dict | None  # None: computed on request
    computed_at: datetime = field(default_factory=timezone.now)


def parse_request(measures: list[str], gain: str) -> tuple[list[str], str | dict]:
    """(output names, gain) of the request, or ValueError with a message for a 400."""
    if not measures:
        measures = ["ndcg_cut.10"]
    specs = parse_measures(measures)
    for spec in specs:
        if spec.name == "runid":
            raise ValueError("runid is a name, not a score: ask for a measure")
        if spec.cutoffs and max(spec.cutoffs) > MAX_API_CUTOFF:
            raise ValueError(f"cut-offs above {MAX_API_CUTOFF} are not served by the API")
    names = [n for spec in specs for n in spec.output_names()]
    if gain in ("linear", "exponential"):
        return names, gain
    try:
        return names, parse_gain_map(gain)
    except ValueError as exc:
        raise ValueError(
            f"gain must be linear, exponential or a map like 1=1,2=3,3=7 ({exc})"
        ) from None


def snapshot_settings(names: list[str], gain, discount: str, ideal: str) -> MeasureSettings | None:
    """The report settings whose snapshot holds every one of `names`, if any."""
    if not isinstance(gain, str):
        return None
    ks = set()
    for name in names:
        if name in _K_FREE:
            continue
        match = _WITH_K.fullmatch(name)
        if match is None:
            return None
        ks.add(int(match.group(2)))
    if len(ks) > 1:
        return None
    k = ks.pop() if ks else MeasureSettings().k
    if not 1 <= k <= MAX_K:
        return None
    return MeasureSettings(k=k, gain=gain, discount=discount, ideal=ideal)


def label_source(campaign: Campaign, name: str | None) -> LabelSource | None:
    if not name:
        return None
    source = campaign.label_sources.filter(name=name).first()
    if source is None:
        known = ", ".join(campaign.label_sources.values_list("name", flat=True)) or "none"
        raise ValueError(f"no label source {name!r} (sources: {known})")
    return source


def campaign_scores(
    *,
    campaign: Campaign,
    measures: list[str],
    gain: str = "linear",
    discount: str = "log2",
    ideal: str = "judged",
    rule: str | None = None,
    source: str | None = None,
) -> Scores:
    """Every run of the campaign on the requested measures (ValueError for a bad request)."""
    check_setting("discount", discount)
    check_setting("ideal", ideal)
    if rule and source:
        raise ValueError("ask for an aggregation rule or a label source, not both")
    names, gain_value = parse_request(measures, gain)
    labels = label_source(campaign, source)
    settings = snapshot_settings(names, gain_value, discount, ideal)
    if settings is not None:
        return _from_snapshot(campaign, names, settings, rule, labels)
    return _on_request(campaign, names, measures, gain_value, discount, ideal, rule, labels)


VALUE_KEYS = ("mean", "low", "high")  # metrics.services.scores.mean_with_interval


def _from_snapshot(campaign, names, settings, rule, labels) -> Scores:
    fresh = scores_snapshot(campaign=campaign, settings=settings, rule=rule, source=labels)
    snap, summary = fresh.snapshot, fresh.summary
    per_query = snap.per_query or {"qids": [], "runs": {}}
    now = timezone.now()
    systems = [
        {
            **_system_fields(s),
            # In mean, low, high order as when computed: PostgreSQL's jsonb keeps keys sorted,
            # and a CSV's columns must not change with where the numbers came from.
            "values": {n: {k: s["values"][n][k] for k in VALUE_KEYS} for n in names},
        }
        for s in summary["systems"]
    ]
    return Scores(
        names=names,
        qids=list(per_query["qids"]),
        systems=systems,
        per_query={
            int(run): {n: values[n] for n in names} for run, values in per_query["runs"].items()
        },
        basis=_basis(summary),
        snapshot={
            "settings": snap.settings_key,
            "computed_at": snap.computed_at,
            "age_seconds": max(0.0, (now - snap.computed_at).total_seconds()),
            "recomputed": fresh.recomputed,
            "replaced_at": fresh.replaced_at,
            "seconds": snap.seconds,
        },
        computed_at=snap.computed_at,
    )


def _on_request(campaign, names, measures, gain, discount, ideal, rule, labels) -> Scores:
    vocab = vocabulary(campaign=campaign)
    qrels = campaign_qrels(
        campaign=campaign, rule=None if labels else rule, source=labels, vocab=vocab
    )
    systems, per_query, qids = evaluate_on_request(
        qrels=qrels,
        runs=campaign_runs(campaign=campaign, vocab=vocab) if qrels.n_queries else [],
        measures=measures or ["ndcg_cut.10"],
        names=names,
        gain=gain,
        discount=discount,
        ideal=ideal,
    )
    basis = {
        "rule": qrels.rule,
        "source": labels.name if labels else None,
        "relevance_level": qrels.relevance_level,
        "max_grade": qrels.max_grade,
        "n_queries": qrels.n_queries,
        "unjudged_queries": qrels.unjudged_queries,
        "adjudicated": qrels.adjudicated,
    }
    return Scores(
        names=names, qids=qids, systems=systems, per_query=per_query, basis=basis, snapshot=None
    )


def _system_fields(s: dict) -> dict:
    keys = ("run_id", "run", "system", "scored", "queries_with_results")
    return {k: s[k] for k in keys}


def _basis(summary: dict) -> dict:
    keys = (
        "rule",
        "source",
        "relevance_level",
        "max_grade",
        "n_queries",
        "unjudged_queries",
        "adjudicated",
    )
    return {k: summary[k] for k in keys}
