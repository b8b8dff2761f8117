"""Readers for TREC qrels, TREC runs and seed 004's ``label qid score`` lines.

Speed and exact error lines pull in opposite directions, so reading is done in up to three
passes, each only when the one before could not finish:

1. polars' CSV reader with a single space as separator: the common, machine-written file;
2. the same after squeezing runs of blanks and tabs into one space (hand-aligned files);
3. a plain Python scan that finds the first bad line and raises ``ValueError("file:line: why")``.

Blank lines are skipped everywhere (and still counted for line numbers).
"""

from __future__ import annotations

import io
import math
import re
import sys
import warnings
from os import PathLike
from pathlib import Path
from typing import IO

import numpy as np
import polars as pl

from .data import Qrels, Run

Source = str | PathLike | IO[str] | IO[bytes]

_QRELS_COLUMNS = ("qid", "iter", "docid", "grade")
_RUN_COLUMNS = ("qid", "q0", "docid", "rank", "score", "tag")
_SCORED_COLUMNS = ("label", "qid", "score")
_EXTRA = "_extra"
_BAD = "_bad"
_TRAILING = "_trailing"
_BLANKS = re.compile(rb"[ \t\r\f\v]+")
_EDGES = re.compile(rb"(?m)^ | $")


class _Layout:
    """What one file format looks like: columns, which are numbers, how to name them."""

    def __init__(
        self,
        columns: tuple[str, ...],
        numeric: dict[str, str],
        usage: str,
        keep: tuple[str, ...],
        *,
        trailing_ok: bool = False,
    ) -> None:
        self.columns = columns
        self.keep = list(keep)
        self.numeric = numeric  # column -> word used in messages ("grade", "score")
        self.usage = usage
        # trec_eval reads a run line's first six fields and ignores the rest.
        self.trailing_ok = trailing_ok

    @property
    def schema(self) -> dict[str, pl.DataType]:
        schema = {c: (pl.Float64 if c in self.numeric else pl.String) for c in self.columns}
        schema["qid"] = pl.Categorical  # few distinct values: 4 bytes a row
        # A sentinel column catches lines with too many fields, which polars would otherwise
        # truncate silently when only some columns are selected.
        schema[_EXTRA] = pl.String
        return schema


QRELS = _Layout(
    _QRELS_COLUMNS, {"grade": "grade"}, "qid iter docno grade", ("qid", "docid", "grade")
)
RUN = _Layout(
    _RUN_COLUMNS,
    {"score": "score"},
    "qid Q0 docno rank score tag",
    ("qid", "docid", "score"),
    trailing_ok=True,
)


class TrailingFieldsWarning(UserWarning):
    """Run lines had fields after the sixth; they were ignored, as trec_eval ignores them."""


SCORED = _Layout(
    _SCORED_COLUMNS, {"label": "label", "score": "score"}, "label qid score", _SCORED_COLUMNS
)


def _load(source: Source) -> tuple[str | bytes, str]:
    """Return (path or bytes, display name). Paths stay paths so polars can map the file."""
    if isinstance(source, str | PathLike):
        text = str(source)
        if text == "-":
            return sys.stdin.buffer.read(), "<stdin>"
        path = Path(text)
        if not path.is_file():
            why = "is a directory" if path.is_dir() else "no such file"
            raise ValueError(f"{text}: {why}")
        return text, text
    data = source.read()
    if isinstance(data, str):
        data = data.encode()
    return data, str(getattr(source, "name", "<file>"))


def _raw_bytes(data: str | bytes) -> bytes:
    if isinstance(data, bytes):
        return data
    try:
        return Path(data).read_bytes()
    except OSError as exc:
        raise ValueError(f"{data}: {exc.strerror or exc}") from None


def _parse_csv(data: str | bytes, layout: _Layout) -> pl.DataFrame:
    source = io.BytesIO(data) if isinstance(data, bytes) else data
    frame = pl.scan_csv(
        source,
        separator=" ",
        has_header=False,
        schema=layout.schema,
        quote_char=None,
        raise_if_empty=False,
        missing_columns="insert",
        truncate_ragged_lines=layout.trailing_ok,
        extra_columns="ignore" if layout.trailing_ok else "raise",
    )
    # Only the columns kept are materialised (no Q0, rank or tag strings). A line is bad when
    # its last field is missing (too few), the sentinel is filled (too many, unless trailing
    # fields are allowed), a kept field is empty or a number is NaN: one boolean column,
    # computed in the same pass.
    extra = pl.col(_EXTRA).is_not_null()
    bad = pl.col(layout.columns[-1]).is_null()
    if not layout.trailing_ok:
        bad = bad | extra
    for col in layout.keep:
        bad = bad | pl.col(col).is_null()
    for col in layout.numeric:
        bad = bad | pl.col(col).is_nan()
    return frame.select(*layout.keep, bad.alias(_BAD), extra.alias(_TRAILING)).collect()


def _clean(df: pl.DataFrame) -> bool:
    """True when every line has its fields and every number is a real number (no NaN)."""
    return not df[_BAD].any()


def _scan_for_error(data: bytes, name: str, layout: _Layout) -> ValueError:
    """Find the first line the fast readers could not take, and say why."""
    width = len(layout.columns)
    for lineno, raw in enumerate(data.splitlines(), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            return ValueError(f"{name}:{lineno}: not valid UTF-8")
        fields = line.split()
        if not fields:
            continue
        if len(fields) < width or (len(fields) > width and not layout.trailing_ok):
            few = "too few" if len(fields) < width else "too many"
            return ValueError(
                f"{name}:{lineno}: {few} columns: expected {width} ({layout.usage}), "
                f"found {len(fields)}"
            )
        for col, word in layout.numeric.items():
            value = fields[layout.columns.index(col)]
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            if math.isnan(number):
                return ValueError(f"{name}:{lineno}: {word} '{value}' is not a number")
    return ValueError(f"{name}: cannot read the file as {layout.usage}")


def _line_numbers(data: bytes) -> np.ndarray:
    """Line number (1-based) of each non-blank line, i.e. of each parsed row."""
    return np.array(
        [i for i, raw in enumerate(data.splitlines(), 1) if raw.strip()], dtype=np.int64
    )


def _read_frame(source: Source, layout: _Layout) -> tuple[pl.DataFrame, str, str | bytes]:
    """(frame, display name, the path or bytes it came from)."""
    data, name = _load(source)
    df: pl.DataFrame | None = None
    try:
        df = _parse_csv(data, layout)
        if not _clean(df):
            df = None
    except (pl.exceptions.PolarsError, OSError):
        df = None
    if df is None:
        raw = _raw_bytes(data)
        squeezed = _EDGES.sub(b"", _BLANKS.sub(b" ", raw))
        squeezed = b"\n".join(line for line in squeezed.split(b"\n") if line)
        try:
            df = _parse_csv(squeezed, layout)
            if not _clean(df):
                df = None
        except (pl.exceptions.PolarsError, OSError):
            df = None
        if df is None:
            raise _scan_for_error(raw, name, layout)
        data = raw
    return df.drop(_BAD), name, data


def _warn_trailing(df: pl.DataFrame, name: str, data: str | bytes) -> None:
    """One warning per file for lines with fields after the sixth (trec_eval ignores them)."""
    flags = df[_TRAILING].to_numpy()
    if not flags.any():
        return
    first = int(np.argmax(flags))
    line = _line_numbers(_raw_bytes(data))[first]
    count = int(flags.sum())
    warnings.warn(
        f"{name}:{line}: {count} line{'s have' if count > 1 else ' has'} more than 6 fields; "
        "the fields after the sixth are ignored, as trec_eval does",
        TrailingFieldsWarning,
        stacklevel=3,
    )


def _duplicate_error(name: str, data: str | bytes, dup: tuple[str, str, int, int], what: str):
    qid, docid, first_row, row = dup
    lines = _line_numbers(_raw_bytes(data))
    return ValueError(
        f"{name}:{lines[row]}: document '{docid}' appears twice in query '{qid}' of the {what} "
        f"(first at line {lines[first_row]})"
    )


def _first_tag(data: str | bytes) -> str | None:
    """The run tag (sixth field) of the first line (trec_eval's runid), without parsing the
    file again."""
    try:
        if isinstance(data, bytes):
            lines = iter(data[:65536].splitlines())
        else:
            with open(data, "rb") as fh:
                lines = iter(fh.readlines(65536))
        for line in lines:
            fields = line.split()
            if fields:
                return fields[min(5, len(fields) - 1)].decode("utf-8", "replace")
    except OSError:
        return None
    return None


def read_qrels(source: Source) -> Qrels:
    """Read a TREC qrels file: ``qid iter docno grade`` per line.

    Parameters
    ----------
    source
        A path, ``"-"`` for standard input, or an open file (text or binary).

    Returns
    -------
    Qrels
        Grades may be whole or real; a negative grade means "pooled but not judged".

    Raises
    ------
    ValueError
        ``"file:line: why"`` for a missing file, a line with the wrong number of columns, a
        grade that is not a number, or a document judged twice for one query.
    """
    df, name, raw = _read_frame(source, QRELS)
    df = df.drop(_TRAILING)
    qrels = Qrels._trusted(df.select("qid", "docid", "grade"))
    dup = qrels.duplicate()
    if dup is not None:
        raise _duplicate_error(name, raw, dup, "qrels")
    return qrels


def read_run(source: Source) -> Run:
    """Read a TREC run file: ``qid Q0 docno rank score tag`` per line.

    The rank column is ignored (the order comes from the scores, ties broken by document id,
    descending); scores are read as 64-bit floats. Fields after the sixth are ignored, as
    trec_eval ignores them, with one :class:`TrailingFieldsWarning` per file.

    Raises
    ------
    ValueError
        ``"file:line: why"`` for a missing file, the wrong number of columns, a score that is
        not a number, or a document listed twice for one query (naming both).
    """
    df, name, raw = _read_frame(source, RUN)
    _warn_trailing(df, name, raw)
    df = df.drop(_TRAILING)
    tag = _first_tag(raw) if df.height else None
    run = Run._trusted(df.select("qid", "docid", "score"), name=tag)
    dup = run.duplicate()
    if dup is not None:
        raise _duplicate_error(name, raw, dup, "run")
    return run


def read_scored(source: Source) -> tuple[Qrels, Run]:
    """Read seed 004's ``label qid score`` lines into qrels and a run.

    Each line is its own document: its id is made from the line's position, zero-padded and
    counted down, so that ids sort descending in file order and ties in score keep the order of
    the file (as the seed's stable sort does). The lines of one query need not be adjacent.

    Returns
    -------
    (Qrels, Run)
        The labels as grades and the scores as the run.
    """
    df, _name, _raw = _read_frame(source, SCORED)
    df = df.drop(_TRAILING)
    n = df.height
    width = len(str(max(n, 1)))
    # Descending ids in file order: line i (0-based) gets n - 1 - i, zero-padded to one width
    # so byte order equals numeric order.
    ids = pl.int_range(n - 1, -1, -1, eager=True).cast(pl.String).str.zfill(width)
    docid = pl.lit("L") + ids if n else ids
    frame = df.select(pl.col("qid"), docid.alias("docid"), pl.col("label"), pl.col("score"))
    qrels = Qrels._trusted(frame.select("qid", "docid", pl.col("label").alias("grade")))
    run = Run._trusted(frame.select("qid", "docid", "score"), name=None)
    return qrels, run
