"""Report snapshots: compute, store, and hand back a fresh one.

A page asks for the snapshot of what it shows (``scores_snapshot``, ``agreement_snapshot``,
``progress_snapshot``).
If a stored one matches the inputs' fingerprint it is returned as is; otherwise it is computed
now, stored, and returned marked as recomputed, with the age of the one it replaced, so the
page can say what happened. ``snapshots_recompute`` does the same for the management command.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotate.models import Campaign, LabelSource
from annotate.services.aggregation import SOURCE_RULE
from metrics.adapters.campaign import campaign_qrels, iter_campaign_runs, vocabulary
from metrics.models import EvaluationSnapshot, SnapshotKind
from metrics.selectors.progress import progress_compute
from metrics.services.agreement import agreement_compute
from metrics.services.fingerprint import (
    agreement_fingerprint,
    grades_fingerprint,
    progress_fingerprint,
    scores_fingerprint,
)
from metrics.services.scores import MeasureSettings, evaluate_campaign


@dataclass(frozen=True)
class Fresh:
    """A snapshot known to match its inputs, and how it came to be."""

    snapshot: EvaluationSnapshot
    recomputed: bool  # computed during this call
    replaced_at: datetime | None  # when the stale snapshot it replaced had been computed

    @property
    def summary(self) -> dict:
        return self.snapshot.summary


def _lookup(
    *, campaign: Campaign, kind: str, source: LabelSource | None, rule: str, key: str
) -> dict:
    if source is not None:
        return {"campaign": campaign, "kind": kind, "label_source": source, "settings_key": key}
    return {
        "campaign": campaign,
        "kind": kind,
        "label_source__isnull": True,
        "rule": rule,
        "settings_key": key,
    }


def _store(lookup: dict, values: dict, pk: int | None) -> EvaluationSnapshot:
    """Update the snapshot `pk`, or insert the one of `lookup`. Two requests computing the same
    snapshot at once both succeed: the second insert fails on the unique constraint and
    updates the first one's row instead. The object is built in memory, never read back."""
    fields = {k: v for k, v in lookup.items() if not k.endswith("__isnull")}
    for _ in range(3):
        if pk is not None and EvaluationSnapshot.objects.filter(pk=pk).update(**values):
            return EvaluationSnapshot(pk=pk, **fields, **values)
        try:
            with transaction.atomic():
                return EvaluationSnapshot.objects.create(**fields, **values)
        except IntegrityError:
            pk = EvaluationSnapshot.objects.filter(**lookup).values_list("pk", flat=True).first()
    raise RuntimeError("could not store the snapshot")  # pragma: no cover - endless racers


def _fresh(
    *,
    lookup: dict,
    fingerprint: dict,
    compute: Callable[[], tuple[dict, dict]],
    force: bool,
    light: bool,
    draw: Callable[[dict], dict[str, dict[str, str]]] | None = None,
) -> Fresh:
    stored = EvaluationSnapshot.objects.filter(**lookup)
    if light:
        # Pages that only read the summary never load the (large) per-query values.
        stored = stored.defer("per_query")
    snapshot = stored.first()
    if snapshot is not None and not force and snapshot.fingerprint == fingerprint:
        return Fresh(snapshot=snapshot, recomputed=False, replaced_at=None)
    started = time.perf_counter()
    summary, per_query = compute()
    values = {
        "summary": summary,
        "per_query": per_query,
        "charts": draw(summary) if draw else {},  # in every language
        "fingerprint": fingerprint,
        "computed_at": timezone.now(),
        "seconds": time.perf_counter() - started,
    }
    saved = _store(lookup, values, snapshot.pk if snapshot is not None else None)
    return Fresh(
        snapshot=saved,
        recomputed=True,
        replaced_at=snapshot.computed_at if snapshot is not None else None,
    )


def scores_snapshot(
    *,
    campaign: Campaign,
    settings: MeasureSettings,
    rule: str | None = None,
    source: LabelSource | None = None,
    force: bool = False,
    light: bool = False,
) -> Fresh:
    """The system scores of `campaign` under `source` (or the raters' grades aggregated by
    `rule`, default the campaign's) and `settings`; computed now if missing or stale.
    ``light``: leave the per-query values unloaded (when only the summary is shown)."""
    rule = SOURCE_RULE if source is not None else (rule or campaign.aggregation)

    def compute() -> tuple[dict, dict]:
        vocab = vocabulary(campaign=campaign)
        qrels = campaign_qrels(
            campaign=campaign,
            rule=None if source is not None else rule,
            source=source,
            vocab=vocab,
        )
        return evaluate_campaign(
            qrels=qrels, runs=iter_campaign_runs(campaign=campaign, vocab=vocab), settings=settings
        )

    return _fresh(
        lookup=_lookup(
            campaign=campaign,
            kind=SnapshotKind.SCORES,
            source=source,
            rule=rule,
            key=settings.key,
        ),
        fingerprint=scores_fingerprint(campaign=campaign, source=source),
        compute=compute,
        draw=_scores_charts,
        force=force,
        light=light,
    )


def agreement_snapshot(
    *, campaign: Campaign, force: bool = False, grades: dict | None = None
) -> Fresh:
    """The rater agreement figures of `campaign`; computed now if missing or stale. `grades`:
    the grades' fingerprint, when the caller has it already (it is the costly part)."""
    return _fresh(
        lookup=_lookup(
            campaign=campaign, kind=SnapshotKind.AGREEMENT, source=None, rule="", key=""
        ),
        fingerprint=agreement_fingerprint(campaign=campaign, grades=grades),
        compute=lambda: (agreement_compute(campaign=campaign), {}),
        force=force,
        light=False,
    )


def progress_snapshot(
    *, campaign: Campaign, agreement: dict, force: bool = False, grades: dict | None = None
) -> Fresh:
    """The judging progress of `campaign` (pool, per rater, over time) with the dashboard's
    charts, drawn from it and from the (fresh) `agreement` summary; computed now if missing or
    stale. Leases are not in it: read them live."""
    return _fresh(
        lookup=_lookup(campaign=campaign, kind=SnapshotKind.PROGRESS, source=None, rule="", key=""),
        fingerprint=progress_fingerprint(campaign=campaign, grades=grades),
        compute=lambda: (progress_compute(campaign=campaign), {}),
        draw=lambda progress: _dashboard_charts(progress=progress, agreement=agreement),
        force=force,
        light=False,
    )


def dashboard_snapshots(*, campaign: Campaign, force: bool = False) -> tuple[Fresh, Fresh]:
    """(progress, agreement) for the dashboard, the grades' fingerprint read once for both."""
    grades = grades_fingerprint(campaign=campaign)
    agreement = agreement_snapshot(campaign=campaign, force=force, grades=grades)
    progress = progress_snapshot(
        campaign=campaign, agreement=agreement.summary, force=force, grades=grades
    )
    return progress, agreement


def snapshots_recompute(*, campaign: Campaign, force: bool = False) -> list[tuple[str, Fresh]]:
    """Bring every snapshot of `campaign` up to date (all when `force`), plus the default ones
    a manager sees first: agreement, and the scores under the campaign's rule at the default
    settings. Returns (what, result) pairs for the command to report."""
    done: list[tuple[str, Fresh]] = []
    progress, agreement = dashboard_snapshots(campaign=campaign, force=force)
    done += [("progress", progress), ("agreement", agreement)]
    wanted = {(None, campaign.aggregation, MeasureSettings().key)}
    for source_id, rule, key in EvaluationSnapshot.objects.filter(
        campaign=campaign, kind=SnapshotKind.SCORES
    ).values_list("label_source_id", "rule", "settings_key"):
        wanted.add((source_id, rule, key))
    sources = {s.pk: s for s in campaign.label_sources.all()}
    for source_id, rule, key in sorted(wanted, key=lambda w: (w[0] or 0, w[1], w[2])):
        source = sources.get(source_id) if source_id else None
        fresh = scores_snapshot(
            campaign=campaign,
            settings=MeasureSettings.from_key(key),
            rule=None if source else rule,
            source=source,
            force=force,
            light=True,
        )
        what = f"scores ({f'source {source.name}' if source else rule}; {key})"
        done.append((what, fresh))
    return done


# The charts module imports matplotlib (a second of start-up and 50 MB): imported when a
# snapshot is drawn, not by every process that imports this service (job workers, commands).
def _scores_charts(summary: dict) -> dict[str, dict[str, str]]:
    from metrics.reports.snapshot_charts import scores_charts

    return scores_charts(summary)


def _dashboard_charts(*, progress: dict, agreement: dict) -> dict[str, dict[str, str]]:
    from metrics.reports.snapshot_charts import dashboard_charts

    return dashboard_charts(progress=progress, agreement=agreement)
