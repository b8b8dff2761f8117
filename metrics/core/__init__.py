"""The evaluation engine: pure numpy (with polars for reading), no Django.

Quick use::

    from metrics.core import read_qrels, read_run, evaluate
    result = evaluate(read_qrels("qrels.txt"), read_run("run.txt"), ["map", "ndcg_cut.10"])
    result.mean["ndcg_cut_10"], result.per_query["map"], result.qids

    from metrics.core import ndcg
    ndcg({"q1": {"d1": 3, "d2": 1}}, {"q1": {"d1": 0.2, "d2": 0.9}}, k=10)

Semantics follow trec_eval (DESIGN.md section 4): ranking by score descending then document id
descending; negative grades are pooled-but-unjudged; the relevance level only affects binary
measures.
"""

from .align import Ranking
from .data import Qrels, Run
from .evaluate import MissingQueriesWarning, Result, evaluate
from .measures import (
    MEASURE_SETS,
    MEASURES,
    MeasureSpec,
    output_names,
    parse_measure,
    parse_measures,
)
from .readers import read_qrels, read_run, read_scored
from .shortcuts import (
    average_precision,
    bpref,
    cg,
    dcg,
    err,
    idcg,
    judged,
    map,
    ndcg,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
    success,
)

__all__ = [
    "MEASURES",
    "MEASURE_SETS",
    "MeasureSpec",
    "MissingQueriesWarning",
    "Qrels",
    "Ranking",
    "Result",
    "Run",
    "average_precision",
    "bpref",
    "cg",
    "dcg",
    "err",
    "evaluate",
    "idcg",
    "judged",
    "map",
    "ndcg",
    "output_names",
    "parse_measure",
    "parse_measures",
    "precision",
    "r_precision",
    "read_qrels",
    "read_run",
    "read_scored",
    "recall",
    "reciprocal_rank",
    "success",
]
