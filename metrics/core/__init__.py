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

from metrics.core.lazy import lazy_exports

# Imported on first use (metrics/core/lazy.py): importing one module of this package
# must not import scipy through the others.
__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        ".align": ("Ranking",),
        ".data": (
            "Qrels",
            "Run",
        ),
        ".evaluation": (
            "MissingQueriesWarning",
            "Result",
            "evaluate",
        ),
        ".measures": (
            "MEASURE_SETS",
            "MEASURES",
            "MeasureSpec",
            "output_names",
            "parse_measure",
            "parse_measures",
        ),
        ".readers": (
            "read_qrels",
            "read_run",
            "read_scored",
        ),
        ".shortcuts": (
            "average_precision",
            "bpref",
            "cg",
            "dcg",
            "err",
            "idcg",
            "judged",
            "map",
            "ndcg",
            "precision",
            "r_precision",
            "recall",
            "reciprocal_rank",
            "success",
        ),
    },
)
