"""Smoke test of the benchmark data generator on a tiny size (the benchmarks are not tests)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import polars as pl

GEN_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "gen_trec.py"


def _load_gen() -> ModuleType:
    # benchmarks/ is a folder of scripts, not a package: load the file directly.
    spec = importlib.util.spec_from_file_location("gen_trec", GEN_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_trec"] = module  # dataclasses look the module up while building Spec
    spec.loader.exec_module(module)
    return module


def _read(path: Path, columns: list[str]) -> pl.DataFrame:
    return pl.read_csv(
        path,
        separator=" ",
        has_header=False,
        new_columns=columns,
        schema_overrides={"qid": pl.String, "docno": pl.String},
    )


def test_it_writes_trec_files_of_the_requested_shape(tmp_path: Path) -> None:
    gen = _load_gen()
    spec = gen.Spec(queries=30, docs=20, judged=10, seed=7)
    qrels_path, run_path = gen.default_paths(spec, tmp_path)
    assert gen.generate(spec, qrels_path, run_path) == (300, 600)

    run = _read(run_path, ["qid", "q0", "docno", "rank", "score", "tag"])
    qrels = _read(qrels_path, ["qid", "zero", "docno", "grade"])
    assert run.height == 600 and qrels.height == 300
    assert run["qid"].n_unique() == qrels["qid"].n_unique() == 30
    assert (run["q0"] == "Q0").all() and (qrels["zero"] == 0).all()
    assert run.group_by("qid").agg(pl.len())["len"].to_list() == [20] * 30

    # No document twice in one query, in either file.
    assert run.select("qid", "docno").is_duplicated().sum() == 0
    assert qrels.select("qid", "docno").is_duplicated().sum() == 0

    # Scores distinct within each query even as float32 (pytrec_eval's precision), and in
    # the same order as the rank column.
    per_query = run.with_columns(pl.col("score").cast(pl.Float32).alias("f32")).group_by("qid")
    stats = per_query.agg(
        pl.col("f32").n_unique().alias("distinct"),
        (pl.col("f32").sort_by("rank").diff().drop_nulls() < 0).all().alias("decreasing"),
    )
    assert (stats["distinct"] == 20).all() and stats["decreasing"].all()

    grades = qrels["grade"].to_numpy()
    assert grades.min() >= 0 and grades.max() <= 3
    # Some judged documents are not retrieved, and some retrieved ones are judged.
    joined = run.join(qrels, on=["qid", "docno"])
    assert 0 < joined.height < qrels.height


def test_it_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    gen = _load_gen()
    spec = gen.Spec(queries=5, docs=8, judged=4, seed=3)
    a = gen.default_paths(spec, tmp_path / "a")
    b = gen.default_paths(spec, tmp_path / "b")
    gen.generate(spec, *a)
    gen.generate(spec, *b)
    assert a[0].read_bytes() == b[0].read_bytes()
    assert a[1].read_bytes() == b[1].read_bytes()
    other = gen.Spec(queries=5, docs=8, judged=4, seed=4)
    c = gen.default_paths(other, tmp_path / "c")
    gen.generate(other, *c)
    assert c[1].read_bytes() != a[1].read_bytes()
