"""NDCG@k of every system under each aggregation rule, side by side (#18): whether the choice of
rule (mean, median, majority, Dawid–Skene) changes the systems' ranking. Each rule's scores are
the systems page's own snapshots (metrics.services.snapshots), so a rule seen once is cached."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from annotate.models import Aggregation, Campaign
from metrics.services.scores import MeasureSettings
from metrics.services.snapshots import scores_snapshot


@dataclass(frozen=True)
class RuleRow:
    run_id: int
    system: dict
    values: list[float | None]  # NDCG@k under each rule, in RULES order
    ranks: list[float | None]  # 1 = best under that rule (ties share the mean rank)


@dataclass(frozen=True)
class RuleTable:
    rules: list[str]
    rows: list[RuleRow]
    ranking_changes: bool  # whether some rule orders the systems differently


def _ranks(values: list[float | None]) -> list[float | None]:
    known = [i for i, v in enumerate(values) if v is not None]
    ranks: list[float | None] = [None] * len(values)
    if known:
        ranked = rankdata([-values[i] for i in known], method="average")  # type: ignore[operator]
        for i, rank in zip(known, ranked, strict=True):
            ranks[i] = float(rank)
    return ranks


def ndcg_by_rule(*, campaign: Campaign, settings: MeasureSettings) -> RuleTable:
    rules = list(Aggregation.values)
    key = f"ndcg_cut_{settings.k}"
    by_run: dict[int, dict] = {}
    values: dict[int, list[float | None]] = {}
    for j, rule in enumerate(rules):
        summary = scores_snapshot(campaign=campaign, settings=settings, rule=rule, light=True)
        for system in summary.summary["systems"]:
            by_run.setdefault(system["run_id"], system)
            row = values.setdefault(system["run_id"], [None] * len(rules))
            mean = system["values"][key]["mean"]
            row[j] = None if mean is None or not np.isfinite(mean) else float(mean)
    runs = sorted(by_run)
    columns = [_ranks([values[run][j] for run in runs]) for j in range(len(rules))]
    rows = [
        RuleRow(
            run_id=run,
            system=by_run[run],
            values=values[run],
            ranks=[columns[j][i] for j in range(len(rules))],
        )
        for i, run in enumerate(runs)
    ]
    orders = {tuple(column) for column in columns if any(r is not None for r in column)}
    return RuleTable(rules=rules, rows=rows, ranking_changes=len(orders) > 1)
