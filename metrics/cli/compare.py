"""``python -m metrics compare``: is run B better than run A on a per-query measure?

Usage::

    python -m metrics compare QRELS RUN_A RUN_B [-m MEASURE ...] [--drop-missing] [-l LEVEL]
        [--seed S] [--top N] [--confidence C] [--adjust holm|bh|none] [--format json]

A query the qrels judge and a run returns nothing for counts as 0 for that run (trec_eval's
``-c``, here the default: dropping it would hide exactly the loss being measured); the output
says at the top how many there were. ``--drop-missing`` compares only the queries both runs
answer.

For each measure: the means of A and B, the mean difference B − A, the paired t-test with its
interval, the randomization test, the BCa bootstrap interval and the queries that gained and
lost most (``shared/STATISTICS.md`` §6). With several measures the p-values are also shown
adjusted (Holm by default). Exit codes: 0 done, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

import numpy as np

from metrics.core import evaluate, read_qrels, read_run
from metrics.core.stats import RunComparison, benjamini_hochberg, compare_runs, holm
from metrics.core.stats.resampling import DEFAULT_RESAMPLES

__all__ = ["compare_files", "format_text", "main"]

DEFAULT_MEASURE = "ndcg_cut.10"
# Not per-query measures: comparing them query by query means nothing.
_SKIP = {"num_q"}


class UsageError(Exception):
    """Bad input or options: reported in one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would exit; main() must return instead
        raise UsageError(f"{self.prog}: {message}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m metrics compare",
        description="Compare run B with run A (baseline) on per-query measures.",
    )
    p.add_argument("qrels", help="TREC qrels file (- for stdin)")
    p.add_argument("run_a", help="baseline run A")
    p.add_argument("run_b", help="candidate run B")
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"trec_eval measure name, repeatable (default {DEFAULT_MEASURE})",
    )
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="qrels queries missing from a run count as 0 (the default; kept for trec_eval habits)",
    )
    p.add_argument(
        "--drop-missing",
        action="store_true",
        help="leave out the qrels queries a run has no results for (instead of counting them as 0)",
    )
    p.add_argument(
        "-l", "--level", type=float, default=1, help="relevance level for binary measures"
    )
    p.add_argument("-M", "--depth", type=int, default=None, help="only the top DEPTH documents")
    p.add_argument("--gain", choices=("linear", "exponential"), default="linear")
    p.add_argument("--discount", choices=("log2", "jarvelin"), default="log2")
    p.add_argument("--ideal", choices=("judged", "retrieved"), default="judged")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument(
        "--seed", type=int, default=None, help="seed of the resampling (default: random, printed)"
    )
    p.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples")
    p.add_argument("--top", type=int, default=5, help="queries listed as gained and lost most")
    p.add_argument(
        "--adjust",
        choices=("holm", "bh", "none"),
        default="holm",
        help="p-value adjustment across measures (default holm)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--precision", type=int, default=4, help="decimals in the text output")
    return p  # fmt: skip


def _evaluate(qrels, path: str, args) -> tuple[dict[str, dict[str, float]], list[str], list[str]]:
    """Per-query values of each measure, the qrels queries the run has no results for, and the
    reader's warnings (trailing fields)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = read_run(path)
    with warnings.catch_warnings():
        # The missing queries are reported in our own words, at the top.
        warnings.simplefilter("ignore")
        res = evaluate(
            qrels,
            run,
            args.measures or [DEFAULT_MEASURE],
            relevance_level=args.level,
            gain=args.gain,
            discount=args.discount,
            ideal=args.ideal,
            complete=not args.drop_missing,
            depth=args.depth,
        )
    values = {name: res.query_values(name) for name in res.names if name not in _SKIP}
    return values, list(res.missing), [str(w.message) for w in caught]


def missing_notice(label: str, path: str, missing: list[str], dropped: bool) -> str:
    """One line for the top of the report: how many qrels queries a run lacks, and what then."""
    n = len(missing)
    shown = ", ".join(missing[:10]) + (f" and {n - 10} more" if n > 10 else "")
    what = (
        "left out of the comparison (--drop-missing)"
        if dropped
        else "counted as 0 for it (--drop-missing leaves them out)"
    )
    noun = "query" if n == 1 else "queries"
    return f"run {label} ({path}) has no results for {n} qrels {noun}, {what}: {shown}"


def _compare_measures(values_a, values_b, args, seed: int):
    """compare_runs per measure on the queries both runs have values for."""
    comparisons: list[tuple[str, RunComparison]] = []
    n_queries = 0
    for name, per_a in values_a.items():
        per_b = values_b[name]
        common = sorted(set(per_a) & set(per_b))
        if len(common) < 2:
            raise UsageError("fewer than two queries are evaluated in both runs")
        a = np.array([per_a[q] for q in common])
        b = np.array([per_b[q] for q in common])
        result = compare_runs(
            a, b, query_ids=np.array(common), confidence=args.confidence, seed=seed,
            n_resamples=args.resamples, top=args.top,
        )  # fmt: skip
        comparisons.append((name, result))
        n_queries = len(common)
    return comparisons, n_queries


def _adjusted(comparisons, adjust: str) -> list[dict]:
    p_t = np.array([c.p_t for _, c in comparisons])
    p_r = np.array([c.p_randomization for _, c in comparisons])
    adjuster = {"holm": holm, "bh": benjamini_hochberg, "none": lambda p: p}[adjust]
    adj_t, adj_r = adjuster(p_t), adjuster(p_r)
    measures = []
    for i, (name, comp) in enumerate(comparisons):
        d = {"measure": name, **comp.to_dict()}
        d["p_t_adjusted"] = float(adj_t[i])
        d["p_randomization_adjusted"] = float(adj_r[i])
        measures.append(d)
    return measures


def compare_files(args) -> dict:
    """Evaluate both runs and compare them measure by measure (a JSON-ready dict)."""
    if [args.qrels, args.run_a, args.run_b].count("-") > 1:
        raise UsageError("only one of the files can be read from standard input")
    qrels = read_qrels(args.qrels)
    values_a, missing_a, notes_a = _evaluate(qrels, args.run_a, args)
    values_b, missing_b, notes_b = _evaluate(qrels, args.run_b, args)
    notes = notes_a + notes_b
    notices = [
        missing_notice(label, path, missing, args.drop_missing)
        for label, path, missing in (("A", args.run_a, missing_a), ("B", args.run_b, missing_b))
        if missing
    ]
    seed = args.seed
    if seed is None:
        # A fresh seed, reported so the result can be reproduced.
        seed = int(np.random.SeedSequence().entropy % 2**32)
    comparisons, n_queries = _compare_measures(values_a, values_b, args, seed)
    adjust = args.adjust if len(comparisons) > 1 else "none"
    return {
        "notices": notices,
        "missing": {"run_a": missing_a, "run_b": missing_b},
        "missing_counted_as_zero": not args.drop_missing,
        "qrels": args.qrels,
        "run_a": args.run_a,
        "run_b": args.run_b,
        "queries": n_queries,
        "confidence": args.confidence,
        "seed": seed,
        "n_resamples": args.resamples,
        "adjustment": adjust,
        "measures": _adjusted(comparisons, adjust),
        "warnings": notes,
    }


def format_text(report: dict, precision: int = 4) -> str:
    """Readable report: one block per measure."""
    f = f".{precision}f"
    c = report["confidence"]
    lines = [f"note: {n}" for n in report["notices"]]
    lines.append(
        f"B = {report['run_b']} against A = {report['run_a']} on {report['queries']} queries "
        f"(seed {report['seed']})"
    )
    for m in report["measures"]:
        t = m["t"] if isinstance(m["t"], str) else f"{m['t']:.4f}"
        adj = report["adjustment"]
        lines += [
            "",
            m["measure"],
            f"  mean A {m['mean_a']:{f}}   mean B {m['mean_b']:{f}}   difference {m['diff']:+{f}}",
            f"  paired t-test: t = {t}, p = {m['p_t']:.4f}"
            + (f" ({adj} adjusted {m['p_t_adjusted']:.4f})" if adj != "none" else "")
            + f"; {c:.0%} interval [{m['ci_t_low']:+{f}}, {m['ci_t_high']:+{f}}]",
            "  randomization test "
            + ("(exact)" if m["randomization_exact"] else f"({m['n_resamples']:,} resamples)")
            + f": p = {m['p_randomization']:.4f}"
            + (f" ({adj} adjusted {m['p_randomization_adjusted']:.4f})" if adj != "none" else ""),
            f"  bootstrap BCa {c:.0%} interval [{m['ci_boot_low']:+{f}}, {m['ci_boot_high']:+{f}}]",
            f"  B better on {m['wins']}, worse on {m['losses']}, tied on {m['ties']} queries",
        ]
        for label, key in (("gained most", "gained"), ("lost most", "lost")):
            if m[key]:
                lines.append(f"  {label}:")
                lines += [
                    f"    {q['query']}  {q['diff']:+{f}}  ({q['a']:{f}} -> {q['b']:{f}})"
                    for q in m[key]
                ]
    lines += [f"warning: {w}" for w in report["warnings"]]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Run the ``compare`` subcommand; returns the exit code."""
    try:
        args = _parser().parse_args(argv)
        if args.top < 0 or args.resamples < 1 or not 0 <= args.precision <= 15:
            raise UsageError("--top must be >= 0, --resamples >= 1 and --precision 0-15")
        report = compare_files(args)
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except (UsageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(report, indent=2))
    else:
        print(format_text(report, args.precision))
    return 0
