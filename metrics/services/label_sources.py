"""How far each label source can be trusted: every source of a campaign (the raters' aggregate,
imported qrels, a competitor's ranking, clicks, purchases) set against every other.

- Coverage: the (query, document) pairs each source labels; a negative grade ("pooled, not
  judged") is no label.
- Agreement, on the pairs both sources label: the share of identical grades, Cohen's kappa with
  linear weights and Krippendorff's alpha with the ordinal metric (metrics.core.stats), and the
  confusion matrix. Real grades (the mean of raters' grades) are first rounded half up to whole
  grades, as the TREC qrels export does, so a 2.5 is a 3 here. The categories are the union of
  the label scale's grades and the grades either source uses (a purchases source adds 0), so
  the weights and the ordinal distances run over the whole scale.
- Model sources (`model:<name>`, llmjudge): also against each rater, beside the raters'
  agreement with each other (metrics.services.label_sources_raters).
- Scores: every run evaluated under every source (metrics.adapters.campaign: every query of the
  campaign counts, a query a source does not label scores 0 under it), NDCG@k, MAP, P@k, MRR and
  judged@k at the campaign's relevance level; then Kendall's tau-b between the orders of the
  runs by NDCG@k under two sources, and the number of pairs of runs the two orders swap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
from scipy.stats import kendalltau

from annotate.models import Campaign, LabelSource
from metrics.adapters.campaign import (
    CampaignQrels,
    CampaignRun,
    campaign_qrels,
    campaign_runs,
    vocabulary,
)
from metrics.core.stats import cohen_kappa, krippendorff_alpha
from metrics.services.scores import evaluate_runs

RATERS = "raters"
DEFAULT_K = 10
MAX_K = 100


@dataclass(frozen=True)
class SourceSummary:
    key: str  # "raters", or the label source's name
    label: str
    kind: str  # raters, imported, competitor, clicks, purchases
    pairs: int
    queries: int
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Agreement:
    a: str
    b: str
    a_pairs: int
    b_pairs: int
    both: int
    exact: float | None  # share of shared pairs with the same (whole) grade
    kappa: float | None  # linear weights
    alpha: float | None  # Krippendorff, ordinal
    categories: list[float]
    confusion: list[list[int]]  # rows: a's grade, columns: b's grade
    note: str = ""

    @property
    def confusion_rows(self) -> list[tuple[float, list[int]]]:
        return list(zip(self.categories, self.confusion, strict=True))


@dataclass(frozen=True)
class RunScores:
    run_id: int
    run: str
    system: str
    values: dict[str, dict[str, float]]  # source key -> measure -> mean


@dataclass(frozen=True)
class OrderChange:
    a: str
    b: str
    tau: float | None
    p_value: float | None
    runs: int
    swapped: int  # pairs of runs ordered one way under a and the other under b
    pairs: int


@dataclass(frozen=True)
class SourcesReport:
    rule: str
    k: int
    relevance_level: float
    n_queries: int
    sources: list[SourceSummary]
    agreements: list[Agreement]
    measures: list[tuple[str, str]]
    runs: list[RunScores]
    orders: list[OrderChange]
    # Model sources against each rater, and the raters against each other (only when the
    # campaign has a model source: metrics.services.label_sources_raters).
    raters: Any = None

    @property
    def ndcg(self) -> str:
        return self.measures[0][0]

    def source(self, key: str) -> SourceSummary:
        return next(s for s in self.sources if s.key == key)


def measures_for(k: int) -> list[tuple[str, str]]:
    """(engine output name, label): NDCG@k first (the ordering measure), judged@k last."""
    return [
        (f"ndcg_cut_{k}", f"NDCG@{k}"),
        ("map", "MAP"),
        (f"P_{k}", f"P@{k}"),
        ("recip_rank", "MRR"),
        (f"judged_{k}", f"judged@{k}"),
    ]


def round_half_up(grades: np.ndarray) -> np.ndarray:
    """Whole grades, halves up (2.5 -> 3), as the TREC export rounds (not numpy's to-even)."""
    whole = np.floor(grades)
    return whole + (grades - whole >= 0.5)


def labelled(table) -> tuple[np.ndarray, np.ndarray]:
    """(packed pair keys, whole grades) of a QrelsTable's labels (grade >= 0), keys sorted."""
    keep = table.grade >= 0
    q = table.query_id[keep].astype(np.int64)
    d = table.document_id[keep].astype(np.int64)
    key = (q << 32) | d  # primary keys stay far below 2**31
    order = np.argsort(key, kind="stable")
    return key[order], round_half_up(table.grade[keep].astype(np.float64))[order]


def agreement(*, a: str, b: str, a_labels: tuple, b_labels: tuple, scale: np.ndarray) -> Agreement:
    """The agreement of two sources from their ``labelled`` arrays."""
    (ka, ga), (kb, gb) = a_labels, b_labels
    _, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
    x, y = ga[ia], gb[ib]
    cats = np.unique(np.concatenate([scale, ga, gb]))
    confusion = np.zeros((cats.size, cats.size), dtype=np.int64)
    np.add.at(confusion, (np.searchsorted(cats, x), np.searchsorted(cats, y)), 1)
    exact = kappa = alpha = None
    note = ""
    if x.size == 0:
        note = "no pair is labelled by both"
    else:
        exact = float(np.mean(x == y))
        k = cohen_kappa(x, y, weights="linear", labels=cats)
        kappa = None if np.isnan(k) else k
        alpha_value = krippendorff_alpha(np.vstack([x, y]), level="ordinal", value_domain=cats)
        alpha = None if np.isnan(alpha_value) else alpha_value
        if kappa is None:
            note = "kappa and alpha are undefined when both sources use a single grade"
    return Agreement(
        a=a,
        b=b,
        a_pairs=int(ka.size),
        b_pairs=int(kb.size),
        both=int(x.size),
        exact=exact,
        kappa=kappa,
        alpha=alpha,
        categories=cats.tolist(),
        confusion=confusion.tolist(),
        note=note,
    )


def order_change(*, a: str, b: str, x: np.ndarray, y: np.ndarray) -> OrderChange:
    """Kendall's tau-b between two score vectors over the same runs, and the swapped pairs."""
    n = int(x.size)
    pairs = n * (n - 1) // 2
    if n < 2:
        return OrderChange(a, b, None, None, n, 0, pairs)
    sx = np.sign(np.subtract.outer(x, x))
    sy = np.sign(np.subtract.outer(y, y))
    upper = np.triu_indices(n, 1)
    swapped = int(np.sum(sx[upper] * sy[upper] < 0))
    tau, p = kendalltau(x, y)
    if np.isnan(tau):
        return OrderChange(a, b, None, None, n, swapped, pairs)
    return OrderChange(a, b, float(tau), float(p), n, swapped, pairs)


def _scores(
    qrels: CampaignQrels, runs: list[CampaignRun], measures: list[tuple[str, str]], k: int
) -> list[dict[str, float]]:
    requests = [f"ndcg_cut.{k}", "map", f"P.{k}", "recip_rank", f"judged.{k}"]
    return [
        {key: float(result.mean[key]) for key, _ in measures}
        for _, result in evaluate_runs(qrels, runs, requests)
    ]


def sources_report(
    *, campaign: Campaign, rule: str | None = None, k: int = DEFAULT_K
) -> SourcesReport:
    """Every source of ``campaign`` against every other (see the module docstring). ``rule``
    aggregates the raters' grades (default: the campaign's). Raises ValueError for a bad rule
    or cut-off."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise ValueError(f"k must be a whole number from 1 to {MAX_K}, not {k!r}")
    vocab = vocabulary(campaign=campaign)
    qrels: dict[str, CampaignQrels] = {
        RATERS: campaign_qrels(campaign=campaign, rule=rule, vocab=vocab)
    }
    for source in LabelSource.objects.filter(campaign=campaign).order_by("kind", "name"):
        qrels[source.name] = campaign_qrels(campaign=campaign, source=source, vocab=vocab)
    rule = qrels[RATERS].rule
    summaries, labels = _summaries(qrels, rule)
    scale = np.asarray(campaign.labels.values_list("grade", flat=True), dtype=np.float64)
    agreements = [
        agreement(a=a, b=b, a_labels=labels[a], b_labels=labels[b], scale=scale)
        for a, b in combinations(qrels, 2)
    ]
    models = {s.key: labels[s.key] for s in summaries if s.kind == "model"}
    measures = measures_for(k)
    runs = campaign_runs(campaign=campaign, vocab=vocab) if vocab.query_pk.size else []
    run_rows = _run_rows(qrels, runs, measures, k)
    return SourcesReport(
        rule=rule,
        k=k,
        relevance_level=qrels[RATERS].relevance_level,
        n_queries=int(vocab.query_pk.size),
        sources=summaries,
        agreements=agreements,
        measures=measures,
        runs=run_rows,
        orders=_orders(qrels, run_rows, ndcg=measures[0][0]),
        raters=_rater_comparison(campaign, models, scale) if models else None,
    )


def _rater_comparison(campaign: Campaign, models: dict, scale: np.ndarray):
    from metrics.services.label_sources_raters import rater_comparison  # it imports this module

    return rater_comparison(campaign=campaign, models=models, scale=scale)


def _summaries(
    qrels: dict[str, CampaignQrels], rule: str
) -> tuple[list[SourceSummary], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Each source's coverage, and its labels by pair for the agreement."""
    summaries, labels = [], {}
    for key, q in qrels.items():
        labels[key] = labelled(q.table)
        judged = q.table.grade >= 0
        summaries.append(
            SourceSummary(
                key=key,
                label=f"Raters ({rule})" if key == RATERS else key,
                kind=RATERS if key == RATERS else q.source.kind,
                pairs=int(judged.sum()),
                queries=int(np.unique(q.table.query_id[judged]).size),
                params={} if q.source is None else q.source.params,
            )
        )
    return summaries, labels


def _run_rows(
    qrels: dict[str, CampaignQrels],
    runs: list[CampaignRun],
    measures: list[tuple[str, str]],
    k: int,
) -> list[RunScores]:
    """Every run's scores under every source."""
    per_source = {key: _scores(q, runs, measures, k) for key, q in qrels.items()}
    return [
        RunScores(
            run_id=entry.run_id,
            run=entry.name,
            system=entry.system,
            values={key: per_source[key][i] for key in qrels},
        )
        for i, entry in enumerate(runs)
    ]


def _orders(
    qrels: dict[str, CampaignQrels], run_rows: list[RunScores], *, ndcg: str
) -> list[OrderChange]:
    """How the order of the runs by NDCG@k changes between every two sources."""
    return [
        order_change(
            a=a,
            b=b,
            x=np.array([r.values[a][ndcg] for r in run_rows]),
            y=np.array([r.values[b][ndcg] for r in run_rows]),
        )
        for a, b in combinations(qrels, 2)
    ]
