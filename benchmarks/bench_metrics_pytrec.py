"""pytrec_eval as a whole process, the end-to-end peer of ``python -m metrics`` in bench_metrics.

Parses both files with pytrec_eval's own parsers, evaluates the measures, and prints the means
in trec_eval's ``measure<TAB>all<TAB>value`` format (full precision, for the cross-check).

Usage::

    python benchmarks/bench_metrics_pytrec.py QRELS RUN [-m ndcg_cut.10 -m map ...]
"""

from __future__ import annotations

import argparse
import sys

import pytrec_eval

DEFAULT_MEASURES = ["ndcg_cut.10", "map", "P.10", "recall.100", "recip_rank"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("qrels")
    parser.add_argument("run")
    parser.add_argument("-m", "--measure", action="append", dest="measures")
    args = parser.parse_args(argv)
    # pytrec_eval takes trec_eval's parameter syntax ("ndcg_cut.10") and names its results
    # with an underscore ("ndcg_cut_10"), like trec_eval's output.
    measures = args.measures or DEFAULT_MEASURES
    with open(args.qrels) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(args.run) as fh:
        run = pytrec_eval.parse_run(fh)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    names = sorted({name for scores in per_query.values() for name in scores})
    n = len(per_query)
    for name in names:
        mean = sum(scores[name] for scores in per_query.values()) / n if n else 0.0
        print(f"{name}\tall\t{mean!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
