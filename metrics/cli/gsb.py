"""``python -m metrics gsb``: GSB statistics and the launch decision from counts or verdicts.

Usage::

    python -m metrics gsb --counts G S B [--threshold T] [--confidence C] [--min-queries N]
    python -m metrics gsb VERDICTS.csv [...] [--format json]

The CSV has a header with columns ``query,verdict`` (verdict G/S/B for the candidate) and
optionally ``rater``, ``candidate_side``, ``chosen_side`` (left/right), ``strength`` (1-3 or
slightly/clearly/much) and ``identical`` (true for identical-list tasks). ``-`` reads stdin.
Exit codes: 0 done, 1 done but the data has an error (the sides were not shuffled), 2 bad input.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from metrics.core.stats import Decision, GsbResult, gsb_from_counts, gsb_from_verdicts

__all__ = ["format_text", "main", "read_verdicts"]

_VERDICTS = {"G", "S", "B", "GOOD", "SAME", "BAD", "+1", "1", "0", "-1"}
_SIDES = {"", "LEFT", "RIGHT", "L", "R"}
_STRENGTHS = {"", "0", "1", "2", "3", "SLIGHTLY", "CLEARLY", "MUCH"}
_TRUE = {"1", "TRUE", "YES", "Y", "T"}
_FALSE = {"", "0", "FALSE", "NO", "N", "F"}
OPTIONAL_COLUMNS = ("rater", "candidate_side", "chosen_side", "strength", "identical")


class UsageError(Exception):
    """Bad input or options: reported in one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would exit; main() must return instead
        raise UsageError(f"{self.prog}: {message}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m metrics gsb",
        description="GSB = (G − B)/N with Tango's score interval, sign test and launch decision.",
    )
    p.add_argument(
        "verdicts", nargs="?", help="CSV of verdicts (columns query,verdict,...); - for stdin"
    )
    p.add_argument(
        "--counts", nargs=3, type=int, metavar=("G", "S", "B"), help="totals, one verdict per query"
    )
    p.add_argument("--threshold", type=float, default=0.0, help="minimum GSB τ (default 0)")
    p.add_argument(
        "--confidence", type=float, default=0.95, help="confidence level c (default 0.95)"
    )
    p.add_argument(
        "--min-queries", type=int, default=30, help="minimum number of queries (default 30)"
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--bootstrap", action="store_true", help="add the cluster-bootstrap cross-check")
    p.add_argument("--seed", type=int, default=None, help="seed of the bootstrap")
    return p  # fmt: skip


def _open(path: str):
    if path == "-":
        return sys.stdin
    try:
        return Path(path).open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc


def read_verdicts(path: str) -> dict[str, list]:
    """Read a verdict CSV into columns, checking every line (errors as ``file:line: why``)."""
    fh = _open(path)
    name = "<stdin>" if path == "-" else path
    try:
        reader = csv.DictReader(fh)
        header = [h.strip().lower() for h in reader.fieldnames or []]
        if "query" not in header or "verdict" not in header:
            raise UsageError(f"{name}:1: the header needs the columns query and verdict")
        unknown = set(header) - {"query", "verdict", *OPTIONAL_COLUMNS}
        if unknown:
            raise UsageError(f"{name}:1: unknown column {sorted(unknown)[0]!r}")
        reader.fieldnames = header
        cols: dict[str, list] = {c: [] for c in header}
        for row in reader:
            line = reader.line_num
            if None in row or any(v is None for v in row.values()):
                raise UsageError(f"{name}:{line}: expected {len(header)} fields")
            cells = {k: v.strip() for k, v in row.items()}
            _check_row(cells, f"{name}:{line}")
            for k in header:
                cols[k].append(cells[k])
    except csv.Error as exc:
        raise UsageError(f"{name}: unreadable CSV: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name}: not UTF-8 text") from exc
    finally:
        if fh is not sys.stdin:
            fh.close()
    if not cols["query"]:
        raise UsageError(f"{name}: no verdicts")
    if "identical" in cols:
        cols["identical"] = [v.upper() in _TRUE for v in cols["identical"]]
    return cols


def _check_row(cells: dict[str, str], where: str) -> None:
    if not cells["query"]:
        raise UsageError(f"{where}: empty query")
    checks = [("verdict", _VERDICTS, "G, S or B"), ("candidate_side", _SIDES, "left or right"),
              ("chosen_side", _SIDES | {"SAME"}, "left, right or empty"),
              ("strength", _STRENGTHS, "1-3, slightly, clearly, much or empty"),
              ("identical", _TRUE | _FALSE, "true or false")]  # fmt: skip
    for col, allowed, what in checks:
        if col in cells and cells[col].upper() not in allowed:
            raise UsageError(f"{where}: {col} {cells[col]!r} is not {what}")
    if "rater" in cells and not cells["rater"] and cells.get("identical", "").upper() not in _TRUE:
        raise UsageError(f"{where}: empty rater")


def _signed(x: float) -> str:
    return f"{x:+.4f}"


def format_text(res: GsbResult) -> str:
    """A readable summary, the decision first as a product manager would read it."""
    c = res.confidence
    lines = [_decision_line(res), ""]
    total = res.n_verdicts
    lines.append(f"{total} verdicts on {res.n_queries} queries" + _informative(res))
    lines.append(
        "  " + "   ".join(f"{k} {v} ({v / total:.1%})"
                          for k, v in (("Good", res.good), ("Same", res.same), ("Bad", res.bad)))
    )  # fmt: skip
    if res.identical_verdicts:
        lines.append(
            f"  {res.identical_queries} identical-list queries counted as Same "
            f"({res.identical_verdicts} verdicts)"
        )
    lines.append(f"GSB {_signed(res.gsb)}   standard error {res.se:.4f} ({_clustering(res)})")
    lines.append(
        f"  {c:.0%} interval [{_signed(res.ci_low)}, {_signed(res.ci_high)}] (Tango score"
        + (f", design effect {res.deff:.2f})" if res.deff != 1.0 else ")")
    )
    if res.bootstrap_low is not None:
        lines.append(
            f"  cluster bootstrap (BCa, seed {res.bootstrap_seed}) "
            f"[{_signed(res.bootstrap_low)}, {_signed(res.bootstrap_high)}]"
        )
    lines.append(
        f"Sign test over queries: {res.sign_k} of {res.sign_n} non-tied queries favour the "
        f"candidate, p = {res.sign_p:.4f}"
    )
    settings = f"minimum GSB {res.threshold:g}, confidence {c:g}, minimum {res.min_queries} queries"
    lines.append(f"Settings: {settings}")
    if res.position_bias is not None:
        pb = res.position_bias
        lines.append(
            f"Position bias: left preferred in {pb.left} of {pb.left + pb.right} "
            f"({pb.share_left:.4f}, 95% [{pb.ci_low:.4f}, {pb.ci_high:.4f}]), p = {pb.p_value:.4f}"
        )
    if res.shuffle is not None:
        sh = res.shuffle
        lines.append(
            f"Shuffle: candidate on the left in {sh.candidate_left} of {sh.tasks} tasks "
            f"({sh.share_left:.1%}), p = {sh.p_value:.4f}"
        )
    if res.alpha is not None:
        lines.append(
            f"Agreement: Krippendorff's ordinal alpha {res.alpha:.4f}, "
            f"raw pairwise agreement {res.raw_agreement:.4f}"
        )
    if res.strength_distribution is not None:
        dist = "  ".join(f"{k:+d}: {v}" for k, v in res.strength_distribution.items())
        lines.append(f"Strength (−3 … +3): {dist}")
    lines += [f"Warning: {w}" for w in res.warnings]
    lines += [f"ERROR: {e}" for e in res.errors]
    return "\n".join(lines)


def _informative(res: GsbResult) -> str:
    if res.n_informative == res.n_queries:
        return ""
    return f" ({res.n_informative} whose lists differ count towards the minimum)"


def _clustering(res: GsbResult) -> str:
    """Which clustering the standard error and the interval allow for, and which critical value
    the interval uses (t only when clustered by rater too: README, "Statistics")."""
    if res.interval_df is not None:
        critical = f"interval with t, {res.interval_df} df"
    else:
        critical = "interval with the normal z"
    if res.deff == 1.0 and res.n_verdicts == res.n_queries and res.n_raters is None:
        return f"one verdict per query: nothing to cluster; {critical}"
    if res.rater_clustered:
        return f"clustered by query and by rater, {res.n_raters} raters; {critical}"
    if res.n_raters is not None:
        return f"clustered by query; {res.n_raters} raters are too few to cluster by; {critical}"
    return f"clustered by query only, no rater column; {critical}"


def _decision_line(res: GsbResult) -> str:
    if res.decision is Decision.LAUNCH:
        return f"Decision: LAUNCH ({res.reason})"
    if res.decision is Decision.DO_NOT_LAUNCH:
        kind = "conclusive" if res.conclusive else "not conclusive"
        return f"Decision: DO NOT LAUNCH, {kind} ({res.reason})"
    return f"Decision: MORE DATA NEEDED ({res.reason}); {res.more_queries_text}"


def main(argv: list[str]) -> int:
    """Run the ``gsb`` subcommand; returns the exit code."""
    try:
        args = _parser().parse_args(argv)
        if (args.counts is None) == (args.verdicts is None):
            raise UsageError("give either --counts G S B or a verdicts CSV file")
        settings = dict(
            confidence=args.confidence, threshold=args.threshold, min_queries=args.min_queries
        )
        if args.counts is not None:
            if args.bootstrap:
                raise UsageError("--bootstrap needs verdicts per query (a CSV file)")
            res = gsb_from_counts(*args.counts, **settings)
        else:
            cols = read_verdicts(args.verdicts)
            res = gsb_from_verdicts(
                cols["query"],
                cols["verdict"],
                raters=cols.get("rater"),
                candidate_sides=cols.get("candidate_side"),
                chosen_sides=cols.get("chosen_side"),
                strengths=cols.get("strength"),
                identical=cols.get("identical"),
                bootstrap=args.bootstrap,
                seed=args.seed,
                **settings,
            )
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except (UsageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(res.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(format_text(res))
    for e in res.errors:
        print(f"error: {e}", file=sys.stderr)
    return 1 if res.errors else 0
