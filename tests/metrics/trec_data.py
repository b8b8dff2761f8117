"""Helpers for the metrics tests: random qrels and runs, TREC files, running the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def random_collection(seed: int, n_queries: int = 30, ties: bool = True):
    """Qrels and run dicts with everything tools disagree on.

    Graded labels 0-3 and some -1 (pooled, unjudged), retrieved documents without judgment,
    judged documents never retrieved, queries without relevant documents, run queries missing
    from the qrels and the other way round, and (with ``ties``) exactly equal scores. Scores are
    multiples of 1/4 or of 1/7 rounded in float32 range: distinct scores stay distinct in
    float32 (pytrec_eval reads scores as 32-bit floats), equal ones are equal in both.
    """
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qi in range(n_queries):
        q = f"q{qi}"
        docs = list(dict.fromkeys(f"d{rng.integers(0, 80)}" for _ in range(rng.integers(1, 40))))
        judged = {}
        for d in docs:
            if rng.random() < 0.7:
                judged[d] = int(rng.choice([-1, 0, 0, 1, 2, 3]))
        for extra in range(rng.integers(0, 6)):
            judged[f"u{qi}_{extra}"] = int(rng.choice([0, 1, 2, 3]))
        if rng.random() < 0.1:
            judged = dict.fromkeys(judged, 0)
        # trec_eval reads out of bounds (undefined behaviour, hangs in pytrec_eval) for a query
        # whose grades are all negative: those stay out of comparisons with it.
        if any(v >= 0 for v in judged.values()) and rng.random() < 0.9:
            qrels[q] = judged
        if rng.random() < 0.9:
            if ties and rng.random() < 0.5:
                scores = rng.integers(0, 5, len(docs)) / 4.0
            else:
                scores = rng.permutation(len(docs) * 3)[: len(docs)] / 7.0 + 1.0
            run[q] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
    run["not_in_qrels"] = {"a": 1.0, "b": 2.0}
    if not set(qrels) & set(run):
        qrels["q_shared"], run["q_shared"] = {"a": 1}, {"a": 1.0}
    return qrels, run


def write_qrels(path: Path, qrels: dict[str, dict[str, float]]) -> Path:
    lines = [f"{q} 0 {d} {g:g}" for q, docs in qrels.items() for d, g in docs.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_run(path: Path, run: dict[str, dict[str, float]], tag: str = "sys") -> Path:
    lines = []
    for q, docs in run.items():
        for rank, (d, s) in enumerate(docs.items(), 1):
            lines.append(f"{q} Q0 {d} {rank} {s!r} {tag}")
    path.write_text("\n".join(lines) + "\n")
    return path


def run_cli(
    *args: str, stdin: str | None = None, module: str = "metrics"
) -> subprocess.CompletedProcess:
    """``python -m metrics ARGS`` in a fresh interpreter, without Django settings."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def parse_trec_output(text: str) -> dict[tuple[str, str], str]:
    """{(measure, qid): value text} from trec_eval-format output."""
    out = {}
    for line in text.splitlines():
        name, qid, value = line.split("\t")
        out[(name.strip(), qid)] = value
    return out
