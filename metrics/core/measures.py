"""Measure names and parameters, in trec_eval's syntax.

A measure request is a string such as ``map``, ``P.5,10``, ``ndcg_cut.1-10`` or the gain map
``ndcg.1=1,2=3,3=7``; output names follow trec_eval (``P_5``, ``ndcg_cut_10``). This module only
parses and names (no numpy, no I/O): the web side validates a ``?measure=`` parameter with
:func:`parse_measures`, which raises ``ValueError`` with a message fit for a 400 answer.

Differences from trec_eval, on purpose:

- the same measure may be asked for several times (``-m P.5 -m P.10``): the cut-offs are merged
  (trec_eval silently keeps only the first);
- cut-offs accept ranges (``1-10``) and duplicates are merged instead of refused;
- output names are accepted as requests too (``P_10``, ``ndcg_cut_10``), so that a name read from
  a report can be asked for again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# trec_eval's default cut-offs for P, recall, ndcg_cut and map_cut; ours for the extras.
DEFAULT_CUTOFFS: tuple[int, ...] = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS: tuple[int, ...] = (1, 5, 10)
# trec_eval's iprec_at_recall levels, printed with two decimals.
RECALL_LEVELS: tuple[float, ...] = tuple(i / 10 for i in range(11))
# Refuse absurd cut-offs early: they would allocate per-rank arrays of that size.
MAX_CUTOFF = 10_000_000


@dataclass(frozen=True)
class MeasureInfo:
    """What the engine knows about one measure family."""

    name: str
    params: str  # "none", "cutoffs" or "gains" (ndcg's rel=gain pairs)
    summary: str  # "mean", "sum" (num_*), "count" (num_q), "geometric" (gm_map), "text" (runid)
    in_trec_eval: bool
    doc: str
    default_cutoffs: tuple[int, ...] = ()

    @property
    def is_integer(self) -> bool:
        """trec_eval prints these as whole numbers (``%ld``)."""
        return self.summary in ("sum", "count")


# trec_eval's bpref (m_bpref.c) divides by min(N, R) judged non-relevant documents,
# not by R as in Buckley & Voorhees (SIGIR 2004): with R = 3, N = 1 and the run n r r r,
# trec_eval gives 0 and the paper 2/3. We compute trec_eval's, and say so.
BPREF_DESCRIPTION = (
    "binary preference as trec_eval computes it (non-relevant above divided by min(N, R); "
    "Buckley & Voorhees 2004 divide by R)"
)


def _m(name: str, params: str, summary: str, trec: bool, doc: str, cut=()) -> MeasureInfo:
    return MeasureInfo(name, params, summary, trec, doc, tuple(cut))


# In trec_eval's output order (its measure table), then the extras trec_eval lacks.
MEASURES: dict[str, MeasureInfo] = {
    m.name: m
    for m in (
        _m("runid", "none", "text", True, "the run's tag (printed, not computed)"),
        _m("num_q", "none", "count", True, "number of queries evaluated"),
        _m("num_ret", "none", "sum", True, "documents retrieved"),
        _m("num_rel", "none", "sum", True, "relevant documents in the qrels"),
        _m("num_rel_ret", "none", "sum", True, "relevant documents retrieved"),
        _m("map", "none", "mean", True, "mean average precision"),
        _m("gm_map", "none", "geometric", True, "geometric mean of AP (per query: log AP)"),
        _m("Rprec", "none", "mean", True, "precision after R documents, R = num_rel"),
        _m("bpref", "none", "mean", True, BPREF_DESCRIPTION),
        _m("recip_rank", "none", "mean", True, "reciprocal rank of the first relevant document"),
        _m("iprec_at_recall", "none", "mean", True, "interpolated precision at recall 0.0-1.0"),
        _m("P", "cutoffs", "mean", True, "precision at k (divides by k)", DEFAULT_CUTOFFS),
        _m("recall", "cutoffs", "mean", True, "recall at k", DEFAULT_CUTOFFS),
        _m("ndcg", "gains", "mean", True, "NDCG over the whole ranking and ideal list"),
        _m("ndcg_cut", "cutoffs", "mean", True, "NDCG at k, ideal cut at k", DEFAULT_CUTOFFS),
        _m(
            "map_cut",
            "cutoffs",
            "mean",
            True,
            "AP at k (denominator: all relevant)",
            DEFAULT_CUTOFFS,
        ),
        _m(
            "success",
            "cutoffs",
            "mean",
            True,
            "1 if a relevant document is in the top k",
            SUCCESS_CUTOFFS,
        ),
        _m("cg_cut", "cutoffs", "mean", False, "cumulative gain of the top k", DEFAULT_CUTOFFS),
        _m("dcg_cut", "cutoffs", "mean", False, "discounted cumulative gain at k", DEFAULT_CUTOFFS),
        _m("idcg_cut", "cutoffs", "mean", False, "ideal DCG at k", DEFAULT_CUTOFFS),
        _m("err_cut", "cutoffs", "mean", False, "expected reciprocal rank at k", DEFAULT_CUTOFFS),
        _m(
            "judged", "cutoffs", "mean", False, "share of the top k that is judged", DEFAULT_CUTOFFS
        ),
    )
}

# Named sets. "official" is trec_eval's default set.
MEASURE_SETS: dict[str, tuple[str, ...]] = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P",
    ),
    "standard": (
        "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
        "P.5,10,20", "recall.10,100", "ndcg", "ndcg_cut.5,10,20", "success.1,5,10",
    ),
}  # fmt: skip


@dataclass(frozen=True)
class MeasureSpec:
    """One parsed measure family with its parameters.

    ``cutoffs`` is sorted and unique for cut-off measures; ``gain_map`` holds ``(grade, gain)``
    pairs for ``ndcg.1=1,2=3`` and ``params`` the text trec_eval prints after the name.
    """

    name: str
    cutoffs: tuple[int, ...] = ()
    gain_map: tuple[tuple[float, float], ...] | None = None
    params: str = ""

    @property
    def info(self) -> MeasureInfo:
        return MEASURES[self.name]

    def output_names(self) -> list[str]:
        """The names trec_eval prints, e.g. ``['P_5', 'P_10']`` or ``['ndcg_1=1,2=3']``."""
        if self.name == "iprec_at_recall":
            return [f"iprec_at_recall_{level:.2f}" for level in RECALL_LEVELS]
        if self.info.params == "cutoffs":
            return [f"{self.name}_{k}" for k in self.cutoffs]
        if self.gain_map is not None:
            return [f"{self.name}_{self.params}"]
        return [self.name]


def valid_measures_text() -> str:
    """A one-line list of the valid names, for error messages."""
    names = ", ".join(MEASURES)
    return f"valid measures: {names}; sets: {', '.join(MEASURE_SETS)}"


def _fail(text: str, why: str) -> ValueError:
    return ValueError(f"measure '{text}': {why}")


def parse_cutoffs(text: str, param: str) -> tuple[int, ...]:
    """Parse ``5,10`` or ``1-10`` or ``1-3,10`` into sorted unique positive integers."""
    values: set[int] = set()
    for part in param.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if m is None:
            raise _fail(text, f"bad cut-off '{part}' (use 5,10 or 1-10)")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        if lo < 1 or hi < lo:
            raise _fail(text, f"cut-offs must be positive and ranges increasing, not '{part}'")
        if hi > MAX_CUTOFF:
            raise _fail(text, f"cut-off {hi} is larger than {MAX_CUTOFF}")
        values.update(range(lo, hi + 1))
    return tuple(sorted(values))


def _parse_gain_map(text: str, param: str) -> tuple[tuple[float, float], ...]:
    pairs: dict[float, float] = {}
    for part in param.split(","):
        grade_text, sep, gain_text = part.partition("=")
        try:
            if not sep:
                raise ValueError
            grade, gain = float(grade_text), float(gain_text)
        except ValueError:
            raise _fail(
                text, f"bad gain pair '{part}' (use grade=gain, e.g. 1=1,2=3,3=7)"
            ) from None
        if grade < 0 or grade != grade or gain != gain:
            raise _fail(text, f"bad gain pair '{part}': grades must be >= 0 and numbers")
        pairs[grade] = gain
    return tuple(sorted(pairs.items()))


def parse_gain_map(text: str) -> dict[float, float]:
    """Parse ``1=1,2=3,3=7`` into ``{1.0: 1.0, 2.0: 3.0, 3.0: 7.0}`` (``--gain`` on the CLI)."""
    return dict(_parse_gain_map(text, text))


def parse_measure(text: str) -> MeasureSpec:
    """Parse one measure request (not a set name) into a :class:`MeasureSpec`.

    Raises
    ------
    ValueError
        For an unknown name or bad parameters; the message lists the valid names.
    """
    raw = text.strip()
    name, dot, param = raw.partition(".")
    if not dot and name not in MEASURES:
        # Output-style names: P_10, ndcg_cut_10, success_1.
        m = re.fullmatch(r"(.+)_(\d+)", raw)
        if m and m.group(1) in MEASURES and MEASURES[m.group(1)].params == "cutoffs":
            name, dot, param = m.group(1), ".", m.group(2)
    info = MEASURES.get(name)
    if info is None:
        raise ValueError(f"unknown measure '{raw}'; {valid_measures_text()}")
    if dot and not param:
        raise _fail(raw, "empty parameter list after '.'")
    if info.params == "cutoffs":
        cutoffs = parse_cutoffs(raw, param) if dot else info.default_cutoffs
        return MeasureSpec(name, cutoffs=cutoffs)
    if info.params == "gains" and dot:
        return MeasureSpec(name, gain_map=_parse_gain_map(raw, param), params=param)
    if dot:
        raise _fail(raw, f"'{name}' takes no parameters")
    return MeasureSpec(name)


def parse_measures(requests: str | Iterable[str] | None) -> list[MeasureSpec]:
    """Parse measure requests and set names into specs, merged and in trec_eval's order.

    Parameters
    ----------
    requests
        One request (``"ndcg_cut.5,10"``: a string is never split on commas), several, or
        ``None`` for trec_eval's ``official`` set.

    Returns
    -------
    list of MeasureSpec
        One spec per family (one per distinct gain map for ``ndcg``), cut-offs merged.
    """
    if requests is None:
        requests = ["official"]
    elif isinstance(requests, str):
        requests = [requests]
    expanded: list[str] = []
    for req in requests:
        if not isinstance(req, str):
            raise ValueError(f"a measure must be a string, not {type(req).__name__}")
        req = req.strip()
        expanded.extend(MEASURE_SETS.get(req, (req,)))
    if not expanded:
        raise ValueError(f"no measure given; {valid_measures_text()}")
    merged: dict[tuple, MeasureSpec] = {}
    for req in expanded:
        spec = parse_measure(req)
        key = (spec.name, spec.gain_map)
        old = merged.get(key)
        if old is not None and spec.info.params == "cutoffs":
            spec = MeasureSpec(spec.name, tuple(sorted(set(old.cutoffs) | set(spec.cutoffs))))
        merged[key] = spec
    order = {name: i for i, name in enumerate(MEASURES)}
    return sorted(merged.values(), key=lambda s: (order[s.name], s.gain_map is not None))


def output_names(requests: str | Iterable[str] | None) -> list[str]:
    """All output names of a request, in printing order (e.g. for a report's columns)."""
    return [n for spec in parse_measures(requests) for n in spec.output_names()]
