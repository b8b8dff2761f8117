"""``python -m metrics QRELS RUN``: trec_eval's command line, and a few options more.

Output (``--format trec``, the default) is trec_eval's: ``%-22s\\t%s\\t%6.4f`` per line,
``num_*`` as whole numbers, per-query lines (``-q``) first, query by query in byte order, then
the ``all`` lines; so it can be diffed against trec_eval. As in trec_eval 10, ``-q -c`` prints
the lines of each qrels query without results, evaluated on an empty ranking: 0, but for its
num_rel (its R, summed into ``all``) and gm_map (log 0.00001); and run lines with fields after
the sixth are read with those fields ignored (one warning per file).
"""

from __future__ import annotations

import io
import json
import warnings
from typing import TextIO

from annotate import safecsv
from metrics.core.measures import MEASURE_SETS, MEASURES, parse_gain_map, parse_measures

from .common import Parser, UsageError, run_command, write_safely

DESCRIPTION = "Evaluate a TREC run against TREC qrels, like trec_eval."
EPILOG = (
    "measures: "
    + ", ".join(MEASURES)
    + ". Parameters as trec_eval: P.5,10  ndcg_cut.1-10  ndcg.1=1,2=3,3=7 (gain map). Sets: "
    + ", ".join(MEASURE_SETS)
    + " (default: official). QRELS, RUN or FILE may be '-' for standard input. Subcommands: "
    "compare, gsb (python -m metrics compare --help)."
)


def build_parser(prog: str) -> Parser:
    p = Parser(prog=prog, description=DESCRIPTION, epilog=EPILOG)
    _add_what_to_evaluate(p)
    _add_how_to_evaluate(p)
    return p


def _add_what_to_evaluate(p: Parser) -> None:
    """The files, the measures, and which queries and documents count."""
    p.add_argument("qrels", nargs="?", metavar="QRELS", help="qrels file: qid iter docno grade")
    p.add_argument("run", nargs="?", metavar="RUN", help="run file: qid Q0 docno rank score tag")
    p.add_argument(
        "-m", "--measure", action="append", metavar="MEASURE", help="measure (repeatable)"
    )
    p.add_argument("-q", "--per-query", action="store_true", help="also print each query's values")
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="also evaluate qrels queries the run lacks, as trec_eval 10 does: on an empty "
        "ranking, so 0 but for num_rel (their R) and gm_map (log 0.00001)",
    )
    p.add_argument(
        "-l",
        "--level",
        default="1",
        metavar="LEVEL",
        help="relevance level for binary measures (default 1)",
    )
    p.add_argument(
        "-M",
        "--depth",
        type=_positive_int,
        metavar="DEPTH",
        help="only the top DEPTH documents per query",
    )
    p.add_argument(
        "-J", "--judged-only", action="store_true", help="drop unjudged documents before evaluating"
    )


def _add_how_to_evaluate(p: Parser) -> None:
    """The output, the gain and discount of the graded measures, and the scored-labels input."""
    p.add_argument(
        "--precision", type=_precision, default=4, metavar="N", help="decimals (default 4)"
    )
    p.add_argument(
        "--format", choices=("trec", "json", "csv"), default="trec", help="output format"
    )
    p.add_argument(
        "--gain",
        default="linear",
        metavar="GAIN",
        help="linear, exponential or a map like 1=1,2=3,3=7",
    )
    p.add_argument("--discount", choices=("log2", "jarvelin"), default="log2", help="rank discount")
    p.add_argument(
        "--ideal",
        choices=("judged", "retrieved"),
        default="judged",
        help="documents of the ideal ranking",
    )
    p.add_argument(
        "--max-grade",
        type=float,
        metavar="G",
        help="ERR's top grade (default: highest in the qrels)",
    )
    p.add_argument(
        "--scored",
        metavar="FILE",
        help="evaluate scored labels instead: one 'label qid score' line per document",
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"-M: expected a positive whole number, not '{text}'") from None
    if value < 1:
        raise UsageError(f"-M: expected a positive whole number, not '{text}'")
    return value


def _precision(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 17:
        raise UsageError(f"--precision: expected a whole number from 0 to 17, not '{text}'")
    return int(text)


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"-l: expected a number, not '{text}'") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise UsageError(f"-l: expected a finite number, not '{text}'")
    return value


def _gain(text: str):
    if text in ("linear", "exponential"):
        return text
    if "=" in text:
        try:
            return parse_gain_map(text)
        except ValueError as exc:
            raise UsageError(f"--gain: {exc}") from None
    raise UsageError(f"--gain: expected linear, exponential or a map like 1=1,2=3, not '{text}'")


def _value_text(value: float, integer: bool, precision: int) -> str:
    return str(round(value)) if integer else f"{value:.{precision}f}"


def _rows(result, per_query: bool, precision: int, runid: str | None):
    """(measure, qid, value text) in trec_eval's printing order."""
    if per_query:
        # With complete, queries without results are evaluated too: trec_eval 10 prints them.
        for i, qid in enumerate(result.qids):
            for name in result.names:
                if name == "num_q":
                    continue
                v = result.per_query[name][i]
                yield name, qid, _value_text(v, name in result.integer, precision)
    if runid is not None:
        yield "runid", "all", runid
    for name in result.names:
        yield name, "all", _value_text(result.mean[name], name in result.integer, precision)


def format_result(
    result, *, fmt: str, per_query: bool, precision: int, runid: str | None = None
) -> str:
    """The text printed for a result in one of the formats."""
    if fmt == "json":
        doc = {
            "measures": list(result.names),
            "all": dict(result.mean),
            "queries": list(result.qids),
            "missing": list(result.missing),
            "warnings": list(result.warnings),
        }
        if runid is not None:
            doc["runid"] = runid
        if per_query:
            doc["per_query"] = {
                q: {n: float(result.per_query[n][i]) for n in result.names}
                for i, q in enumerate(result.qids)
            }
        return json.dumps(doc, indent=1) + "\n"
    rows = _rows(result, per_query, precision, runid)
    if fmt == "csv":
        buf = io.StringIO()
        writer = safecsv.writer(buf, lineterminator="\n")
        writer.writerow(("measure", "qid", "value"))
        writer.writerows(rows)
        return buf.getvalue()
    return "".join(f"{name:<22}\t{qid}\t{value}\n" for name, qid, value in rows)


def main(argv: list[str], *, prog: str, stdout: TextIO, stderr: TextIO) -> int:
    """Parse ``argv``, evaluate, print; return the exit code."""

    def body() -> int:
        opts = build_parser(prog).parse_args(argv)
        level = _level(opts.level)
        gain = _gain(opts.gain)
        specs = parse_measures(opts.measure)  # unknown measures fail before any file is read
        inputs = [opts.scored] if opts.scored is not None else [opts.qrels, opts.run]
        if opts.scored is not None and (opts.qrels or opts.run):
            raise UsageError("give either QRELS RUN or --scored FILE, not both")
        if opts.scored is None and (opts.qrels is None or opts.run is None):
            raise UsageError("QRELS and RUN are required (or --scored FILE)")
        if inputs.count("-") > 1:
            raise UsageError("only one input can be standard input ('-')")

        from metrics.core import evaluate, read_qrels, read_run, read_scored

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if opts.scored is not None:
                qrels, run = read_scored(opts.scored)
            else:
                qrels, run = read_qrels(opts.qrels), read_run(opts.run)
        for note in caught:
            print(f"{prog}: warning: {note.message}", file=stderr)
        with warnings.catch_warnings():
            # The result carries its warnings; they are printed below, once.
            warnings.simplefilter("ignore")
            result = evaluate(
                qrels,
                run,
                [s for spec in specs for s in _requests(spec)],
                relevance_level=level,
                gain=gain,
                discount=opts.discount,
                ideal=opts.ideal,
                complete=opts.complete,
                depth=opts.depth,
                judged_docs_only=opts.judged_only,
                max_grade=opts.max_grade,
            )
        for note in result.warnings:
            print(f"{prog}: warning: {note}", file=stderr)
        runid = (run.name or "") if any(s.name == "runid" for s in specs) else None
        text = format_result(
            result, fmt=opts.format, per_query=opts.per_query, precision=opts.precision, runid=runid
        )
        write_safely(stdout, text)
        return 0

    return run_command(body, prog=prog, stdout=stdout, stderr=stderr)


def _requests(spec) -> list[str]:
    """Turn a parsed spec back into a request string (evaluate parses again: cheap)."""
    if spec.cutoffs:
        return [f"{spec.name}.{','.join(map(str, spec.cutoffs))}"]
    if spec.gain_map is not None:
        return [f"{spec.name}.{spec.params}"]
    return [spec.name]
