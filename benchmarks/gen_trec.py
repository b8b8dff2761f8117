"""Seeded generator of a synthetic TREC run and its qrels, for the metrics benchmarks.

The run has ``queries`` x ``docs`` lines (``qid Q0 docno rank score tag``), the qrels
``queries`` x ``judged`` lines (``qid 0 docno grade``, grades 0-3). Some judged documents are
not retrieved, relevant documents crowd towards the top ranks (so the measures are neither
all 0 nor all 1), and a few queries have no relevant document at all: the cases where tools
are most likely to disagree.

Scores strictly decrease with rank by at least 0.0009 after rounding to 4 decimals, so they
stay distinct in float32: pytrec_eval reads scores as 32-bit floats and would otherwise break
ties differently from a 64-bit reader.

Everything is numpy-vectorised and written a chunk of queries at a time through polars, so the
100,000 x 1,000 case (100,000,000 run lines, about 4.5 GB) streams in bounded memory.

Usage::

    python benchmarks/gen_trec.py                       # 10,000 x 100, 50 judged
    python benchmarks/gen_trec.py -n 100000 -d 1000     # the --big case of bench_metrics
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np
import polars as pl

DATA_DIR = Path(__file__).resolve().parent / "data"

# Documents are numbered inside a corpus much larger than any query's candidate list, so that
# documents recur across queries (as in a real collection) yet never twice within one query.
CORPUS_SIZE = 100_000_000
DOCNO_WIDTH = 9
# Rows per chunk: large enough for polars to write at full speed, small enough that the
# 100M-line case stays at a few hundred MB.
CHUNK_ROWS = 2_000_000
SCORE_DECIMALS = 4
RUN_TAG = "synthetic"


@dataclass(frozen=True)
class Spec:
    """The shape of a generated collection."""

    queries: int = 10_000
    docs: int = 100
    judged: int = 50
    # Share of each query's judged documents that the run does not retrieve.
    unretrieved: float = 0.3
    # Share of queries whose judged documents are all grade 0.
    no_relevant: float = 0.02
    seed: int = 0

    @property
    def judged_unretrieved(self) -> int:
        # At least one unretrieved judged document whenever there are judgments, so the
        # "ideal ranking from every judged document" path is always exercised.
        n = round(self.judged * self.unretrieved)
        if self.judged > 0:
            n = max(n, 1)
        # If the run is short, the judged documents it cannot hold must be unretrieved.
        return max(n, self.judged - self.docs)

    @property
    def judged_retrieved(self) -> int:
        return self.judged - self.judged_unretrieved

    @property
    def stem(self) -> str:
        return f"{self.queries}x{self.docs}x{self.judged}-s{self.seed}"

    def validate(self) -> None:
        if self.queries < 1 or self.docs < 1 or self.judged < 0:
            raise ValueError("need queries >= 1, docs >= 1 and judged >= 0")
        if not 0.0 <= self.unretrieved <= 1.0 or not 0.0 <= self.no_relevant <= 1.0:
            raise ValueError("fractions must lie in [0, 1]")


def default_paths(spec: Spec, out_dir: Path = DATA_DIR) -> tuple[Path, Path]:
    """Where ``spec``'s qrels and run go, named after its shape so sizes never collide."""
    return out_dir / f"{spec.stem}.qrels", out_dir / f"{spec.stem}.run"


def _qid_strings(first: int, count: int, width: int) -> pl.Series:
    # Zero-padded so that string order equals numeric order, whatever a tool sorts by.
    ids = pl.Series("i", np.arange(first + 1, first + count + 1, dtype=np.int64))
    return ("q" + ids.cast(pl.String).str.zfill(width)).alias("qid")


def _docno_strings(nums: np.ndarray) -> pl.Series:
    return ("D" + pl.Series("d", nums.ravel()).cast(pl.String).str.zfill(DOCNO_WIDTH)).alias(
        "docno"
    )


def _chunk(
    rng: np.random.Generator, spec: Spec, first: int, count: int, qid_width: int
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Run and qrels rows for queries ``first`` .. ``first + count - 1``."""
    d, j_ret, j_unret = spec.docs, spec.judged_retrieved, spec.judged_unretrieved
    m = d + j_unret

    # Distinct document numbers per query: a shuffled 0..m-1 shifted by a per-query offset.
    # Columns 0..d-1 are the retrieved list in rank order, the rest are judged but unretrieved.
    local = rng.permuted(np.broadcast_to(np.arange(m, dtype=np.int64), (count, m)), axis=1)
    offset = rng.integers(0, CORPUS_SIZE - m, size=(count, 1), dtype=np.int64)
    docnums = local + offset

    # Scores: a random top score minus a cumulative sum of gaps >= 0.001. Rounded to the
    # written precision here, so the file holds exactly these values.
    top = rng.uniform(10.0, 40.0, size=(count, 1))
    gaps = rng.uniform(0.001, 0.05, size=(count, d))
    scores = np.round(top - np.cumsum(gaps, axis=1), SCORE_DECIMALS)

    qids = _qid_strings(first, count, qid_width)
    run = pl.DataFrame(
        {
            "qid": qids.gather(np.repeat(np.arange(count), d)),
            "q0": pl.repeat("Q0", count * d, eager=True),
            "docno": _docno_strings(docnums[:, :d]),
            "rank": np.tile(np.arange(1, d + 1, dtype=np.int64), count),
            "score": scores.ravel(),
            "tag": pl.repeat(RUN_TAG, count * d, eager=True),
        }
    )

    # Which retrieved ranks are judged: the smallest of exponential keys stretched by rank, so
    # the judged (and the relevant) documents crowd towards the top as they would in a pool.
    ranks = np.arange(d)
    keys = rng.exponential(size=(count, d)) * (1.0 + ranks / max(d / 10.0, 1.0))
    if j_ret > 0:
        judged_cols = np.argpartition(keys, j_ret - 1, axis=1)[:, :j_ret]
    else:
        judged_cols = np.empty((count, 0), dtype=np.int64)
    unret_cols = np.broadcast_to(np.arange(d, m), (count, j_unret))
    cols = np.concatenate([judged_cols, unret_cols], axis=1)

    # Grades ~ Binomial(3, p): p falls with rank for retrieved documents, and is low for the
    # unretrieved ones (a run misses mostly the less relevant documents).
    p_ret = 0.6 * np.exp(-judged_cols / max(d / 4.0, 1.0)) + 0.05
    p_unret = np.full((count, j_unret), 0.15)
    grades = rng.binomial(3, np.concatenate([p_ret, p_unret], axis=1))
    grades[rng.random(count) < spec.no_relevant] = 0

    # Qrels files are rarely in rank order; shuffle each query's judgments.
    order = rng.permuted(np.broadcast_to(np.arange(spec.judged), (count, spec.judged)), axis=1)
    cols = np.take_along_axis(cols, order, axis=1)
    grades = np.take_along_axis(grades, order, axis=1)

    qrels = pl.DataFrame(
        {
            "qid": qids.gather(np.repeat(np.arange(count), spec.judged)),
            "zero": pl.repeat("0", count * spec.judged, eager=True),
            "docno": _docno_strings(np.take_along_axis(docnums, cols, axis=1)),
            "grade": grades.ravel().astype(np.int64),
        }
    )
    return run, qrels


def _write(df: pl.DataFrame, fh: IO[bytes]) -> None:
    df.write_csv(
        fh,
        separator=" ",
        include_header=False,
        quote_style="never",
        float_precision=SCORE_DECIMALS,
    )


def generate(spec: Spec, qrels_path: Path, run_path: Path) -> tuple[int, int]:
    """Write the qrels and run of ``spec``; return their line counts (qrels, run)."""
    spec.validate()
    qrels_path.parent.mkdir(parents=True, exist_ok=True)
    run_path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(spec.seed)
    # The chunk size depends only on the spec, so a seed always yields the same files.
    per_chunk = max(1, CHUNK_ROWS // max(spec.docs, spec.judged, 1))
    qid_width = len(str(spec.queries))
    n_run = n_qrels = 0
    with open(run_path, "wb") as run_fh, open(qrels_path, "wb") as qrels_fh:
        for first in range(0, spec.queries, per_chunk):
            count = min(per_chunk, spec.queries - first)
            run, qrels = _chunk(rng, spec, first, count, qid_width)
            _write(run, run_fh)
            _write(qrels, qrels_fh)
            n_run += run.height
            n_qrels += qrels.height
    return n_qrels, n_run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--queries", type=int, default=Spec.queries)
    parser.add_argument("-d", "--docs", type=int, default=Spec.docs, help="retrieved per query")
    parser.add_argument("-j", "--judged", type=int, default=Spec.judged, help="judged per query")
    parser.add_argument("--unretrieved", type=float, default=Spec.unretrieved)
    parser.add_argument("--no-relevant", type=float, default=Spec.no_relevant)
    parser.add_argument("--seed", type=int, default=Spec.seed)
    parser.add_argument("--out-dir", type=Path, default=DATA_DIR)
    args = parser.parse_args(argv)
    spec = Spec(
        queries=args.queries,
        docs=args.docs,
        judged=args.judged,
        unretrieved=args.unretrieved,
        no_relevant=args.no_relevant,
        seed=args.seed,
    )
    try:
        spec.validate()
    except ValueError as exc:
        parser.error(str(exc))
    qrels_path, run_path = default_paths(spec, args.out_dir)
    start = time.perf_counter()
    n_qrels, n_run = generate(spec, qrels_path, run_path)
    elapsed = time.perf_counter() - start
    print(f"{qrels_path}: {n_qrels:,} lines, {qrels_path.stat().st_size:,} bytes")
    print(f"{run_path}: {n_run:,} lines, {run_path.stat().st_size:,} bytes")
    print(f"generated in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
