"""Agreement with trec_eval, through pytrec_eval, on generated collections.

Every measure both tools have, per query, to 1e-9; relevance levels 1 and 2; ``-J``; ``-M``
(pytrec_eval has no ``-M``: the reference gets runs cut by an independent sort); the
``ndcg.1=..`` gain map (through the extension class, since pytrec_eval's Python wrapper
mangles the ``=``); and ``-c``, where trec_eval 10 evaluates a query the run lacks on a
one-document ranking of a document in no qrels, which pytrec_eval can be given too.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pytrec_eval_ext import RelevanceEvaluator

from metrics.core import Qrels, Run, evaluate
from tests.metrics.trec_data import random_collection

TREC_MEASURES = [
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P.1,2,5,10,30", "recall.1,5,10,100", "ndcg", "ndcg_cut.1,3,5,10,20",
    "map_cut.1,5,10,100", "success.1,2,5,10",
]  # fmt: skip
SEEDS = range(25)


def reference(qrels, run, measures, level=1, judged_only=False):
    evaluator = RelevanceEvaluator(qrels, set(measures), level, judged_only)
    return evaluator.evaluate(run)


def ours(qrels, run, measures, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(qrels, run, measures, **options)


def assert_agree(ref, res, names=None):
    assert sorted(ref) == sorted(res.qids)
    names = names or [n for n in res.names if n != "num_q"]
    worst = 0.0
    for name in names:
        mine = res.query_values(name)
        for qid, values in ref.items():
            diff = abs(values[name] - mine[qid])
            assert diff < 1e-9, (name, qid, values[name], mine[qid])
            worst = max(worst, diff)
    return worst


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("level", [1, 2])
def test_it_agrees_with_trec_eval(seed, level):
    qrels, run = random_collection(seed, ties=True)
    ref = reference(qrels, run, TREC_MEASURES, level)
    res = ours(qrels, run, TREC_MEASURES, relevance_level=level)
    assert_agree(ref, res)


@pytest.mark.parametrize("seed", range(8))
def test_it_agrees_on_the_gain_map(seed):
    qrels, run = random_collection(seed)
    for spec in ("ndcg.1=1,2=3,3=7", "ndcg.0=0.5,2=5", "ndcg.3=1"):
        ref = reference(qrels, run, [spec])
        res = ours(qrels, run, [spec])
        name = "ndcg_" + spec.split(".", 1)[1]
        assert res.names == (name,)
        assert_agree({q: {name: v["ndcg"]} for q, v in ref.items()}, res, [name])


@pytest.mark.parametrize("seed", range(8))
def test_it_agrees_with_judged_docs_only(seed):
    qrels, run = random_collection(seed)
    ref = reference(qrels, run, TREC_MEASURES, judged_only=True)
    res = ours(qrels, run, TREC_MEASURES, judged_docs_only=True)
    # trec_eval divides 0 by 0 for iprec_at_recall when -J leaves a query nothing: skip those.
    empty = {q for q, v in ref.items() if v["num_ret"] == 0}
    ref = {q: v for q, v in ref.items() if q not in empty}
    names = [n for n in res.names if n != "num_q"]
    for name in names:
        mine = res.query_values(name)
        for qid, values in ref.items():
            assert abs(values[name] - mine[qid]) < 1e-9, (name, qid)


def trec_order(docs: dict[str, float]) -> list[str]:
    """trec_eval's order, independently: score descending, then docno descending."""
    return [d for d, _ in sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


@pytest.mark.parametrize("seed", range(8))
def test_depth_keeps_the_top_of_each_query(seed):
    qrels, run = random_collection(seed)
    for depth in (1, 3, 10):
        cut = {q: {d: docs[d] for d in trec_order(docs)[:depth]} for q, docs in run.items()}
        ref = reference(qrels, cut, TREC_MEASURES)
        res = ours(qrels, run, TREC_MEASURES, depth=depth)
        assert_agree(ref, res)


def test_ties_are_broken_by_docid_descending_like_trec_eval():
    qrels = {"q": {"a": 1, "b": 0, "c": 0, "B": 2, "é": 3}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "B": 1.0, "é": 1.0}}
    ref = reference(qrels, run, ["ndcg_cut.1,2,3,4", "recip_rank", "map"])
    res = ours(qrels, run, ["ndcg_cut.1,2,3,4", "recip_rank", "map"])
    assert_agree(ref, res)
    # Byte order descending: é (0xC3..) > c > b > a > B.
    assert res.query_values("recip_rank")["q"] == 1.0


# trec_eval 10 evaluates a qrels query the run lacks (-c) on a ranking of one document that is
# in no qrels, then sets num_ret (and utility, relstring, unj*, rbp_resid) back to 0
# (trec_eval.c, "Bogus results for a missing topic"). pytrec_eval evaluates that ranking too.
BOGUS_DOC = "ceci_nest_pas_un_docno"


def test_complete_evaluates_missing_queries_as_trec_eval_10_does():
    qrels, run = random_collection(3)
    qrels["only_in_qrels_1"] = {"z": 2, "y": 0}
    qrels["only_in_qrels_2"] = {"z": 1}
    ref = reference(qrels, run, TREC_MEASURES)
    missing = sorted(set(qrels) - set(ref))
    assert missing
    for qid in missing:
        ref[qid] = reference({qid: qrels[qid]}, {qid: {BOGUS_DOC: 1.0}}, TREC_MEASURES)[qid]
        ref[qid]["num_ret"] = 0.0
    plain = ours(qrels, run, TREC_MEASURES)
    full = ours(qrels, run, TREC_MEASURES, complete=True)
    n_qrels = len(qrels)
    assert plain.mean["num_q"] == n_qrels - len(missing)
    assert full.mean["num_q"] == n_qrels
    # Every query, missing ones included: num_rel is the query's R, gm_map log(0.00001), the
    # rest 0.
    assert_agree(ref, full)
    assert full.query_values("num_rel")["only_in_qrels_1"] == 1.0
    assert full.query_values("gm_map")["only_in_qrels_2"] == pytest.approx(np.log(1e-5))
    for name in full.names:
        if name == "num_q":
            continue
        total = sum(v[name] for v in ref.values())
        if name.startswith("num_"):
            # Sums over every qrels query (trec_eval's test/out.test.aqc: num_rel all counts
            # the query the run lacks).
            assert full.mean[name] == pytest.approx(total)
        elif name == "gm_map":
            assert full.mean[name] == pytest.approx(np.exp(total / n_qrels))
        else:
            assert full.mean[name] == pytest.approx(total / n_qrels)


def test_missing_queries_are_skipped_with_a_warning_naming_them():
    qrels = {"a": {"d": 1}, "b": {"d": 1}, "c": {"d": 1}}
    run = {"a": {"d": 1.0}, "zz": {"d": 1.0}}
    with pytest.warns(UserWarning, match="2 qrels queries have no results.*: b, c"):
        res = evaluate(qrels, run, ["map", "num_q"])
    assert res.qids == ("a",)
    assert res.missing == ("b", "c")
    assert res.mean["num_q"] == 1


def test_scores_are_64_bit_floats():
    # 1 + 2^-40 and 1 are equal in float32 (pytrec_eval would tie them) but not in float64.
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0 + 2.0**-40}}
    assert evaluate(qrels, run, "recip_rank").mean["recip_rank"] == 0.5


def test_arrays_dicts_and_files_give_the_same_result(tmp_path):
    from tests.metrics.trec_data import write_qrels, write_run

    qrels, run = random_collection(11)
    from metrics.core import read_qrels, read_run

    q_rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    r_rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    a = ours(
        Qrels.from_arrays(*zip(*q_rows, strict=True)),
        Run.from_arrays(*zip(*r_rows, strict=True)),
        TREC_MEASURES,
    )
    b = ours(qrels, run, TREC_MEASURES)
    c = ours(
        read_qrels(write_qrels(tmp_path / "q", qrels)),
        read_run(write_run(tmp_path / "r", run)),
        TREC_MEASURES,
    )
    for name in a.names:
        assert np.array_equal(a.per_query[name], b.per_query[name])
        assert np.array_equal(a.per_query[name], c.per_query[name])


def test_hash_collisions_do_not_change_anything(monkeypatch):
    import metrics.core.data as data

    qrels, run = random_collection(7)
    expected = ours(qrels, run, TREC_MEASURES)
    # Keep 1 bit of each document hash: nearly every key now collides with another one.
    monkeypatch.setattr(data, "_HASH_DROP", np.uint64(63))
    got = ours(qrels, run, TREC_MEASURES)
    for name in expected.names:
        assert np.array_equal(expected.per_query[name], got.per_query[name]), name
    with pytest.raises(ValueError, match="'d1' appears twice in query 'q'"):
        Run.from_arrays(["q", "q", "q", "q"], ["d0", "d1", "d2", "d1"], [1.0, 2.0, 3.0, 4.0])
    assert Run.from_arrays(["q"] * 5, ["a", "b", "c", "d", "e"], [1.0] * 5).duplicate() is None
