"""Small functions for notebooks and scripts: one measure, one number (or one per query).

Each accepts :class:`~metrics.core.data.Qrels` / :class:`~metrics.core.data.Run` or plain dicts
``{qid: {docid: grade}}`` / ``{qid: {docid: score}}`` and returns the mean over the queries that
count, or ``{qid: value}`` with ``per_query=True``. The options are those of
:func:`metrics.core.evaluation.evaluate` (``relevance_level``, ``complete``, ``depth``, ...).

Notation: the run's documents in ranking order have grades g_1, g_2, ...; rel_i is 1 when
g_i >= the relevance level; R is the number of relevant documents in the qrels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .data import Qrels, Run
from .evaluation import evaluate
from .kernels import Gain

QrelsLike = Qrels | Mapping[Any, Mapping[Any, float]]
RunLike = Run | Mapping[Any, Mapping[Any, float]]


_PARAMETERS = """
    Parameters
    ----------
    qrels, run
        :class:`Qrels` and :class:`Run`, or ``{qid: {docid: grade}}`` and
        ``{qid: {docid: score}}``.
    k
        The cut-off (``None`` where allowed: no cut-off).
    per_query
        Return ``{qid: value}`` instead of the mean.
    **options
        Passed to :func:`metrics.core.evaluation.evaluate`: ``gain``, ``discount``, ``ideal``,
        ``relevance_level``, ``complete``, ``depth``, ``judged_docs_only``, ``max_grade``.

    Returns
    -------
    float or dict
        The mean over the queries that count (qrels queries with results, or all of them with
        ``complete=True``), or one value per query.

    Raises
    ------
    ValueError
        Bad input or option, or no query with both results and judgments.
    """


def _documented(func):
    """Append the shared numpydoc sections to a measure function's docstring."""
    func.__doc__ = (func.__doc__ or "").rstrip() + "\n" + _PARAMETERS
    return func


def _one(qrels, run, measure: str, per_query: bool, **options: Any) -> float | dict[str, float]:
    result = evaluate(qrels, run, measure, **options)
    (name,) = result.names
    return result.query_values(name) if per_query else result.mean[name]


def _cut(measure: str, k: int | None) -> str:
    if k is None:
        return measure
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive whole number, not {k!r}")
    return f"{measure}.{k}"


@_documented
def ndcg(
    qrels: QrelsLike,
    run: RunLike,
    k: int | None = 10,
    *,
    gain: Gain = "linear",
    discount: str = "log2",
    ideal: str = "judged",
    per_query: bool = False,
    **options: Any,
) -> float | dict[str, float]:
    r"""Normalised discounted cumulative gain at k.

    .. math:: \mathrm{NDCG@}k = \frac{\mathrm{DCG@}k}{\mathrm{IDCG@}k}, \qquad
              \mathrm{DCG@}k = \sum_{i=1}^{k} \frac{\mathrm{gain}(g_i)}{d(i)}

    gain(g) = g (``linear``), 2^g - 1 (``exponential``) or a map; d(i) = log2(i + 1) (``log2``)
    or max(1, log2 i) (``jarvelin``). IDCG@k is the DCG@k of the ideal ordering of every judged
    document of the query (``ideal="judged"``, trec_eval) or of the retrieved ones only
    (``"retrieved"``). NDCG is 0 where IDCG is 0. ``k=None``: the whole ranking and ideal list
    (trec_eval's ``ndcg``).
    """
    measure = "ndcg" if k is None else _cut("ndcg_cut", k)
    opts = dict(gain=gain, discount=discount, ideal=ideal, **options)
    return _one(qrels, run, measure, per_query, **opts)


@_documented
def dcg(
    qrels: QrelsLike,
    run: RunLike,
    k: int = 10,
    *,
    gain: Gain = "linear",
    discount: str = "log2",
    per_query: bool = False,
    **options: Any,
) -> float | dict[str, float]:
    r"""Discounted cumulative gain at k: :math:`\sum_{i=1}^{k} \mathrm{gain}(g_i) / d(i)`."""
    return _one(qrels, run, _cut("dcg_cut", k), per_query, gain=gain, discount=discount, **options)


@_documented
def idcg(
    qrels: QrelsLike,
    run: RunLike,
    k: int = 10,
    *,
    gain: Gain = "linear",
    discount: str = "log2",
    ideal: str = "judged",
    per_query: bool = False,
    **options: Any,
) -> float | dict[str, float]:
    r"""Ideal DCG at k: the DCG@k of the judged (or retrieved) documents sorted by gain."""
    opts = dict(gain=gain, discount=discount, ideal=ideal, **options)
    return _one(qrels, run, _cut("idcg_cut", k), per_query, **opts)


@_documented
def cg(
    qrels: QrelsLike,
    run: RunLike,
    k: int = 10,
    *,
    gain: Gain = "linear",
    per_query: bool = False,
    **options: Any,
) -> float | dict[str, float]:
    r"""Cumulative gain at k: :math:`\mathrm{CG@}k = \sum_{i=1}^{k} \mathrm{gain}(g_i)`."""
    return _one(qrels, run, _cut("cg_cut", k), per_query, gain=gain, **options)


@_documented
def average_precision(
    qrels: QrelsLike, run: RunLike, k: int | None = None, *, per_query: bool = False, **options: Any
) -> float | dict[str, float]:
    r"""Average precision (the mean over queries is MAP), optionally cut at k (AP@k).

    .. math:: \mathrm{AP} = \frac{1}{R} \sum_{i:\ rel_i = 1,\ i \le k} \mathrm{P@}i

    The denominator is R, all relevant documents of the query, retrieved or not (also at k,
    as trec_eval's ``map_cut``); AP is 0 when R = 0.
    """
    measure = "map" if k is None else _cut("map_cut", k)
    return _one(qrels, run, measure, per_query, **options)


map = average_precision  # the name IR people look for (shadows the builtin only here)


@_documented
def precision(
    qrels: QrelsLike, run: RunLike, k: int = 10, *, per_query: bool = False, **options: Any
) -> float | dict[str, float]:
    r"""Precision at k: :math:`\mathrm{P@}k = \frac{1}{k} \sum_{i=1}^{k} rel_i` (divides by k
    even when fewer than k documents were retrieved)."""
    return _one(qrels, run, _cut("P", k), per_query, **options)


@_documented
def recall(
    qrels: QrelsLike, run: RunLike, k: int = 100, *, per_query: bool = False, **options: Any
) -> float | dict[str, float]:
    r"""Recall at k: :math:`\frac{1}{R} \sum_{i=1}^{k} rel_i`, 0 when R = 0."""
    return _one(qrels, run, _cut("recall", k), per_query, **options)


@_documented
def reciprocal_rank(
    qrels: QrelsLike, run: RunLike, *, per_query: bool = False, **options: Any
) -> float | dict[str, float]:
    r"""Reciprocal rank of the first relevant document, :math:`1 / \min\{i : rel_i = 1\}`, 0 if
    none; no cut-off. The mean over queries is MRR."""
    return _one(qrels, run, "recip_rank", per_query, **options)


@_documented
def r_precision(
    qrels: QrelsLike, run: RunLike, *, per_query: bool = False, **options: Any
) -> float | dict[str, float]:
    r"""R-precision: :math:`\frac{1}{R} \sum_{i=1}^{R} rel_i`."""
    return _one(qrels, run, "Rprec", per_query, **options)


@_documented
def success(
    qrels: QrelsLike, run: RunLike, k: int = 10, *, per_query: bool = False, **options: Any
) -> float | dict[str, float]:
    r"""Success at k: 1 when some :math:`rel_i = 1` with :math:`i \le k`, else 0."""
    return _one(qrels, run, _cut("success", k), per_query, **options)


@_documented
def err(
    qrels: QrelsLike,
    run: RunLike,
    k: int = 10,
    *,
    max_grade: float | None = None,
    per_query: bool = False,
    **options: Any,
) -> float | dict[str, float]:
    r"""Expected reciprocal rank at k (Chapelle et al. 2009).

    .. math:: \mathrm{ERR@}k = \sum_{i=1}^{k} \frac{R_i}{i} \prod_{j<i} (1 - R_j), \qquad
              R_i = \frac{2^{g_i} - 1}{2^{g_{\max}}}

    g_max is ``max_grade`` (a label scale's top grade), by default the highest grade in the
    qrels; unjudged documents have R = 0.
    """
    return _one(qrels, run, _cut("err_cut", k), per_query, max_grade=max_grade, **options)


@_documented
def judged(
    qrels: QrelsLike, run: RunLike, k: int = 10, *, per_query: bool = False, **options: Any
) -> float | dict[str, float]:
    r"""Judged at k: the share of the top k that has a grade (>= 0) in the qrels, divided by k."""
    return _one(qrels, run, _cut("judged", k), per_query, **options)


@_documented
def bpref(
    qrels: QrelsLike, run: RunLike, *, per_query: bool = False, **options: Any
) -> float | dict[str, float]:
    r"""Binary preference, as trec_eval.

    .. math:: \mathrm{bpref} = \frac{1}{R} \sum_{r \text{ relevant, retrieved}}
              \Bigl(1 - \frac{\min(n_r, R)}{\min(N, R)}\Bigr)

    n_r: judged non-relevant documents ranked above r; N: judged non-relevant documents of the
    query (the term is 1 when n_r = 0). Unjudged documents are ignored.
    """
    return _one(qrels, run, "bpref", per_query, **options)
