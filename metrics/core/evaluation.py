"""``evaluate``: trec_eval's measures (and a few more) for a run against qrels.

The keyword options of :func:`evaluate`, most of them trec_eval's flags, read best together:

relevance_level
    Grade from which a document counts as relevant for the binary measures (trec_eval ``-l``).
    It never changes NDCG gains.
gain
    ``"linear"`` (g), ``"exponential"`` (2^g - 1) or a map ``{grade: gain}`` (unlisted grades
    keep gain g), for every DCG-family measure; ``ndcg.1=..`` overrides it for itself.
discount
    ``"log2"``: divide by log2(i + 1); ``"jarvelin"``: 1 at i = 1, then log2(i).
ideal
    ``"judged"``: IDCG from every judged document of the query (trec_eval); ``"retrieved"``:
    from the retrieved list only.
complete
    trec_eval ``-c``: qrels queries without results count, evaluated on an empty ranking as
    trec_eval 10 does (0, but for num_rel, the ideal DCG and gm_map's log(0.00001)). Otherwise
    they are skipped with a :class:`MissingQueriesWarning` naming them.
depth
    trec_eval ``-M``: only the top ``depth`` documents of each query are considered.
judged_docs_only
    trec_eval ``-J``: drop unjudged documents from the ranking first.
max_grade
    ERR's g_max; default the highest grade in the qrels.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from . import kernels as K
from .align import Ranking, align
from .data import Qrels, Run
from .measures import MEASURES, RECALL_LEVELS, MeasureSpec, parse_measures

IDEALS = ("judged", "retrieved")
# trec_eval's floor for the geometric mean (MIN_GEO_MEAN).
MIN_GEO_MEAN = 0.00001


class MissingQueriesWarning(UserWarning):
    """Queries of the qrels have no results in the run and were skipped."""


@dataclass(frozen=True)
class Result:
    """Per-query values and summaries of an evaluation.

    Attributes
    ----------
    qids
        The queries that count, in byte order (trec_eval's order).
    per_query
        Output name (``"ndcg_cut_10"``) -> float64 array aligned with ``qids``.
    mean
        Output name -> trec_eval's ``all`` value: the mean over the queries that count, except
        ``num_*`` (sums; ``num_q`` is the number of queries) and ``gm_map`` (geometric mean).
    names
        Output names in printing order.
    evaluated
        False for queries that count only because of ``complete=True`` (no results in the
        run: evaluated on an empty ranking, as trec_eval 10 does, which prints them with
        ``-q``: 0 but for num_rel, the ideal DCG and gm_map's log(0.00001)).
    missing
        Qrels queries without results in the run.
    warnings
        Human-readable warnings (also issued through :mod:`warnings`).
    """

    qids: tuple[str, ...]
    per_query: Mapping[str, np.ndarray]
    mean: Mapping[str, float]
    names: tuple[str, ...]
    evaluated: np.ndarray
    missing: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    integer: frozenset[str] = field(default_factory=frozenset)

    def query_values(self, name: str) -> dict[str, float]:
        """``{qid: value}`` for one measure."""
        return dict(zip(self.qids, self.per_query[name].tolist(), strict=True))

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{qid: {measure: value}}``, pytrec_eval's shape (``num_q`` left out, as there)."""
        names = [n for n in self.names if n != "num_q"]
        cols = [self.per_query[n].tolist() for n in names]
        return {
            q: dict(zip(names, vals, strict=True))
            for q, *vals in zip(self.qids, *cols, strict=True)
        }


class _Context:
    """Lazily computed arrays shared by the measures of one evaluation."""

    def __init__(self, ranking: Ranking, level: float, discount: str, ideal: str, max_grade: float):
        self.r = ranking
        self.level = level
        self.discount = discount
        self.ideal = ideal
        self.max_grade = max_grade
        self.nq = ranking.n_queries

    @cached_property
    def rel(self) -> K.Relevant:
        r = self.r
        return K.Relevant(r.qidx, r.rank, r.grades, self.level, self.nq)

    @cached_property
    def num_rel(self) -> np.ndarray:
        return K.per_query_sum(self.r.judged_qidx[self.r.judged >= self.level], self.nq)

    @cached_property
    def num_nonrel(self) -> np.ndarray:
        return K.per_query_sum(self.r.judged_qidx[self.r.judged < self.level], self.nq)

    def ideal_list(self, gain: K.Gain) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(gains, qidx, rank) of the ideal ranking: positive gains, highest first."""
        if self.ideal == "judged":
            g, q = K.gain_values(self.r.judged, gain), self.r.judged_qidx
            monotone = not isinstance(gain, Mapping)
        else:
            g, q = K.gain_values(self.r.grades, gain), self.r.qidx
            monotone = False
        keep = g > 0
        g, q = g[keep], q[keep]
        if monotone:
            # Judged grades are stored highest first and the gain increases with the grade.
            return g, q, np.arange(len(g), dtype=np.int64) - K.segment_starts(q, self.nq)[:-1][q]
        return K.sorted_desc_by_query(g, q, self.nq)

    def idcg(self, gain: K.Gain, k: int | None) -> np.ndarray:
        g, q, rank = self.ideal_list(gain)
        return K.dcg_at(g, rank, q, self.nq, k, self.discount)

    def dcg(self, gain: K.Gain, k: int | None) -> np.ndarray:
        r = self.r
        return K.dcg_at(K.gain_values(r.grades, gain), r.rank, r.qidx, self.nq, k, self.discount)


def _compute(spec: MeasureSpec, ctx: _Context, gain: K.Gain) -> list[np.ndarray]:
    """Per-query values of one spec, one array per output name."""
    r, nq, name, ks = ctx.r, ctx.nq, spec.name, spec.cutoffs
    if name == "num_q":
        return [np.ones(nq)]
    if name == "num_ret":
        return [r.lengths.astype(np.float64)]
    if name == "num_rel":
        return [ctx.num_rel]
    if name == "num_rel_ret":
        return [ctx.rel.count.astype(np.float64)]
    if name in ("map", "gm_map"):
        ap = K.average_precision(ctx.rel, ctx.num_rel)
        return [ap if name == "map" else np.log(np.maximum(ap, MIN_GEO_MEAN))]
    if name == "map_cut":
        return [K.average_precision(ctx.rel, ctx.num_rel, k) for k in ks]
    if name == "Rprec":
        rel = ctx.rel
        top_r = rel.rank < ctx.num_rel[rel.qidx]
        return [K.safe_divide(K.per_query_sum(rel.qidx[top_r], nq), ctx.num_rel)]
    if name == "bpref":
        return [K.bpref(r.qidx, ctx.rel.mask, ctx.num_rel, ctx.num_nonrel)]
    if name == "recip_rank":
        first = ctx.rel.first_rank
        return [K.safe_divide(np.ones(nq), np.where(first >= 0, first + 1.0, 0.0))]
    if name == "iprec_at_recall":
        return list(K.interpolated_precision(ctx.rel, ctx.num_rel, RECALL_LEVELS))
    if name == "success":
        first = ctx.rel.first_rank
        return [((first >= 0) & (first < k)).astype(np.float64) for k in ks]
    if name in ("P", "recall", "judged"):
        ranks, qs = (r.rank, r.qidx) if name == "judged" else (ctx.rel.rank, ctx.rel.qidx)
        out = []
        for k in ks:
            count = K.per_query_sum(qs[ranks < k], nq)
            out.append(K.safe_divide(count, ctx.num_rel) if name == "recall" else count / k)
        return out
    if name == "ndcg":
        g = dict(spec.gain_map) if spec.gain_map is not None else gain
        return [K.safe_divide(ctx.dcg(g, None), ctx.idcg(g, None))]
    if name == "ndcg_cut":
        return [K.safe_divide(ctx.dcg(gain, k), ctx.idcg(gain, k)) for k in ks]
    if name == "dcg_cut":
        return [ctx.dcg(gain, k) for k in ks]
    if name == "idcg_cut":
        return [ctx.idcg(gain, k) for k in ks]
    if name == "cg_cut":
        gains = K.gain_values(r.grades, gain)
        return [K.per_query_sum(r.qidx, nq, np.where(r.rank < k, gains, 0.0)) for k in ks]
    if name == "err_cut":
        return list(K.err_at(r.grades, r.rank, r.qidx, nq, ks, ctx.max_grade))
    raise AssertionError(f"measure {name} has no kernel")  # pragma: no cover - table is closed


def _summary(spec: MeasureSpec, values: np.ndarray, n_queries: int) -> float:
    kind = MEASURES[spec.name].summary
    if kind == "count":
        return float(n_queries)
    if kind == "sum":
        return float(values.sum())
    if n_queries == 0:
        return 0.0
    if kind == "geometric":
        # Missing queries (complete) hold log(MIN_GEO_MEAN), the log of an AP of 0.
        return math.exp(float(values.sum()) / n_queries)
    return float(values.sum()) / n_queries


def _check_level(level: float) -> float:
    try:
        level = float(level)
    except (TypeError, ValueError):
        raise ValueError(f"relevance_level must be a number, not {level!r}") from None
    if not math.isfinite(level) or level < 0:
        # Below 0 trec_eval would count unjudged documents as relevant: never meaningful.
        raise ValueError(f"relevance_level must be a finite number >= 0, not {level!r}")
    return level


def _coerce(qrels, run) -> tuple[Qrels, Run]:
    if isinstance(qrels, Mapping):
        qrels = Qrels.from_dict(qrels)
    if isinstance(run, Mapping):
        run = Run.from_dict(run)
    if not isinstance(qrels, Qrels):
        raise ValueError(
            f"qrels must be Qrels or a dict {{qid: {{docid: grade}}}}, not {type(qrels).__name__}"
        )
    if not isinstance(run, Run):
        raise ValueError(
            f"run must be Run or a dict {{qid: {{docid: score}}}}, not {type(run).__name__}"
        )
    return qrels, run


def _missing_message(missing: list[str]) -> str:
    shown = ", ".join(missing[:10]) + (
        f" and {len(missing) - 10} more" if len(missing) > 10 else ""
    )
    return (
        f"{len(missing)} qrels quer{'y has' if len(missing) == 1 else 'ies have'} no results in "
        f"the run and {'is' if len(missing) == 1 else 'are'} skipped (-c counts them as 0): {shown}"
    )


def _check_options(gain: K.Gain, discount: str, ideal: str, depth: int | None) -> K.Gain:
    """Validate the evaluation options; returns the checked gain."""
    gain = K.check_gain(gain)
    if discount not in K.DISCOUNTS:
        raise ValueError(f"discount must be one of {', '.join(K.DISCOUNTS)}, not {discount!r}")
    if ideal not in IDEALS:
        raise ValueError(f"ideal must be one of {', '.join(IDEALS)}, not {ideal!r}")
    if depth is not None and (not isinstance(depth, int | np.integer) or depth < 1):
        raise ValueError(f"depth must be a positive whole number, not {depth!r}")
    return gain


def _values(specs, ctx: _Context, gain: K.Gain):
    """(per_query, mean, names, integer names) of every requested measure."""
    ranking = ctx.r
    per_query: dict[str, np.ndarray] = {}
    mean: dict[str, float] = {}
    names: list[str] = []
    integer: set[str] = set()
    n = ranking.n_queries
    for spec in specs:
        if spec.info.summary == "text":
            continue  # runid: a label for printing, not a number
        values = _compute(spec, ctx, gain)
        for out_name, vals in zip(spec.output_names(), values, strict=True):
            # With complete, a query without results is evaluated on an empty ranking, as
            # trec_eval 10 does: 0 for the run's measures, but its real num_rel (and ideal
            # DCG), and log(MIN_GEO_MEAN) for gm_map.
            per_query[out_name] = vals
            mean[out_name] = _summary(spec, vals, n)
            names.append(out_name)
            if spec.info.is_integer:
                integer.add(out_name)
    return per_query, mean, names, integer


def _aligned(
    qrels: Qrels, run: Run, *, complete: bool, depth: int | None, judged_docs_only: bool
) -> tuple[Ranking, list[str]]:
    """The run's rankings matched with the qrels, and the qrels queries the run lacks."""
    ranking, missing = align(
        qrels, run, complete=complete, depth=depth, judged_docs_only=judged_docs_only
    )
    if ranking.n_queries == 0:
        raise ValueError("no query has both results in the run and judgments in the qrels")
    return ranking, missing


def _missing_notes(missing: list[str], complete: bool) -> list[str]:
    """The note on skipped queries (none with ``complete``: they count), also warned."""
    if not missing or complete:
        return []
    note = _missing_message(missing)
    # stacklevel 3 points the warning at evaluate's caller, as evaluate itself would with 2.
    warnings.warn(note, MissingQueriesWarning, stacklevel=3)
    return [note]


def _result(ranking: Ranking, values, missing: list[str], notes: list[str]) -> Result:
    """The ``(per_query, mean, names, integer)`` of :func:`_values` as a :class:`Result`."""
    per_query, mean, names, integer = values
    return Result(
        qids=tuple(ranking.qids.tolist()),
        per_query=per_query,
        mean=mean,
        names=tuple(names),
        evaluated=ranking.evaluated,
        missing=tuple(missing),
        warnings=tuple(notes),
        integer=frozenset(integer),
    )


def evaluate(
    qrels: Qrels | Mapping,
    run: Run | Mapping,
    measures: str | Iterable[str] | None = None,
    *,
    relevance_level: float = 1,
    gain: K.Gain = "linear",
    discount: str = "log2",
    ideal: str = "judged",
    complete: bool = False,
    depth: int | None = None,
    judged_docs_only: bool = False,
    max_grade: float | None = None,
) -> Result:
    """Evaluate ``run`` against ``qrels`` with trec_eval's measures.

    Parameters
    ----------
    qrels, run
        :class:`Qrels` / :class:`Run`, or dicts ``{qid: {docid: grade}}`` / ``{qid: {docid:
        score}}``.
    measures
        trec_eval names and parameters (``"map"``, ``"P.5,10"``, ``"ndcg_cut.1-10"``,
        ``"ndcg.1=1,2=3,3=7"``), extras (``cg_cut``, ``dcg_cut``, ``idcg_cut``, ``map_cut``,
        ``err_cut``, ``judged``) or a set (``"official"``, ``"standard"``). A string is one
        request. ``None``: ``"official"``.
    relevance_level, gain, discount, ideal, complete, depth, judged_docs_only, max_grade
        trec_eval's options and a few more: see the module docstring.

    Returns
    -------
    Result

    Raises
    ------
    ValueError
        Unknown measure or bad option; no query with both results and judgments (unless
        ``complete``).
    """
    specs = parse_measures(measures)
    level = _check_level(relevance_level)
    gain = _check_options(gain, discount, ideal, depth)
    qrels, run = _coerce(qrels, run)
    ranking, missing = _aligned(
        qrels, run, complete=complete, depth=depth, judged_docs_only=judged_docs_only
    )
    top = qrels.max_grade if max_grade is None else float(max_grade)
    values = _values(specs, _Context(ranking, level, discount, ideal, top), gain)
    # Warned once the measures are computed, so an error in them leaves no warning behind.
    notes = _missing_notes(missing, complete)
    return _result(ranking, values, missing, notes)
