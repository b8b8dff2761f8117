"""Exponential gain against ranx's ``ndcg_burges`` (2^rel - 1 over log2(i + 1)).

ranx builds the ideal list from the qrels' documents with a grade >= 1, sorted by grade, and
cuts it at k; uncut it uses all of them: the same as our default ``ideal="judged"``. Its order
of equal scores is its own, so these runs have no ties; it has no negative grades either.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from metrics.core import evaluate

ranx = pytest.importorskip("ranx")

# One xdist worker runs these (were the JIT on, only that one would compile ranx's kernels).
pytestmark = pytest.mark.xdist_group("ranx")


def collection(seed: int):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for qi in range(40):
        q = f"q{qi}"
        docs = [f"d{i}" for i in rng.permutation(60)[: rng.integers(1, 30)]]
        scores = rng.permutation(200)[: len(docs)] / 3.0  # distinct: no ties
        run[q] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
        judged = {d: int(rng.integers(0, 4)) for d in docs if rng.random() < 0.7}
        judged.update({f"x{qi}_{j}": int(rng.integers(0, 4)) for j in range(rng.integers(0, 5))})
        if not judged:
            judged = {"nothing": 0}
        qrels[q] = judged
    return qrels, run


@pytest.mark.parametrize("seed", range(4))
def test_exponential_ndcg_matches_ranx_ndcg_burges(seed):
    qrels, run = collection(seed)
    cutoffs = (1, 3, 5, 10, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ranx and numba deprecations
        ref = ranx.evaluate(
            ranx.Qrels(qrels),
            ranx.Run(run),
            [f"ndcg_burges@{k}" for k in cutoffs] + ["ndcg_burges"],
            return_mean=False,
        )
    qids = sorted(qrels)
    ranx_order = list(ranx.Qrels(qrels).keys())
    res = evaluate(
        qrels, run, ["ndcg", "ndcg_cut." + ",".join(map(str, cutoffs))], gain="exponential"
    )
    assert list(res.qids) == qids
    for k in cutoffs:
        theirs = dict(zip(ranx_order, ref[f"ndcg_burges@{k}"], strict=True))
        mine = res.query_values(f"ndcg_cut_{k}")
        for q in qids:
            assert mine[q] == pytest.approx(theirs[q], abs=1e-9), (k, q)
    theirs = dict(zip(ranx_order, ref["ndcg_burges"], strict=True))
    for q, value in res.query_values("ndcg").items():
        assert value == pytest.approx(theirs[q], abs=1e-9), q
