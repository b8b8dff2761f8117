"""The database-to-engine adapters: external ids, every campaign query counting, THE run order
for runs with ranks only, the campaign's relevance level and top grade, and a number of queries
that does not grow with the data."""

from __future__ import annotations

import polars as pl
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.models import Document, LabelSource, SourceLabel
from annotate.ranking import run_order
from metrics.adapters.campaign import UNJUDGED_GRADE, campaign_qrels, campaign_runs, vocabulary
from metrics.core import evaluate
from tests.annotate.judgment_data import (
    document,
    external_ids,
    grade,
    make_run,
    pool_item,
    query,
)
from tests.metrics.report_helpers import make_raters, make_world


def engine_order(engine_run) -> dict[str, list[str]]:
    """The order the engine evaluates in (score descending, then document id descending), with
    the engine's document ids (primary keys) turned back into external ids."""
    frame = engine_run.frame.with_columns(pl.col("qid").cast(pl.String))
    frame = frame.sort(["qid", "score", "docid"], descending=[False, True, True])
    names = dict(Document.objects.values_list("pk", "external_id"))
    out: dict[str, list[str]] = {}
    for qid, docid, _ in frame.iter_rows():
        out.setdefault(qid, []).append(names[int(docid)])
    return out


def as_external(qrels) -> dict[str, dict[str, float]]:
    names = dict(Document.objects.values_list("pk", "external_id"))
    return {
        q: {(names[int(d)] if d else d): g for d, g in docs.items()}
        for q, docs in qrels.qrels.to_dict().items()
    }


def test_qrels_use_external_ids_and_the_chosen_rule(personas):
    c = personas.campaign
    r1, r2 = make_raters(c, 2)
    item = pool_item(c, "q1", "d1")
    grade(item, r1, "Good")
    grade(item, r2, "Bad")
    grade(pool_item(c, "q1", "d2"), r1, "Fair")
    for rule, expected in (("mean", 2.0), ("majority", 1.0)):
        qrels = campaign_qrels(campaign=c, rule=rule)
        assert as_external(qrels) == {"q1": {"d1": expected, "d2": 2.0}}
        assert qrels.rule == rule
    assert qrels.relevance_level == 2.0 and qrels.max_grade == 3.0


def test_a_query_nobody_judged_still_counts_as_zero(personas):
    c = personas.campaign
    (r1,) = make_raters(c, 1)
    grade(pool_item(c, "q1", "d1"), r1, "Good")
    query(c, "q2")  # no judgment at all
    make_run(c, "sys", [("q1", "d1", 1, 1.0), ("q2", "d9", 1, 1.0)])
    qrels = campaign_qrels(campaign=c, rule="mean")
    assert (qrels.n_queries, qrels.unjudged_queries) == (2, 1)
    assert as_external(qrels)["q2"] == {"": UNJUDGED_GRADE}
    (run,) = campaign_runs(campaign=c)
    result = evaluate(qrels.qrels, run.run, ["ndcg_cut.10", "judged.10"], complete=True)
    assert result.query_values("ndcg_cut_10") == {"q1": 1.0, "q2": 0.0}
    assert result.mean["ndcg_cut_10"] == 0.5  # q2 weighs as much as q1
    assert result.query_values("judged_10")["q2"] == 0.0


def test_runs_with_ranks_only_keep_the_one_ranking_order(personas):
    c = personas.campaign
    # Ranks only, with a tie at rank 2 (broken by document id, descending bytes: "b" > "B").
    rows = [
        ("q1", "a", 1, None),
        ("q1", "B", 2, None),
        ("q1", "b", 2, None),
        ("q1", "c", 4, None),
        ("q2", "x", 2, None),
        ("q2", "y", 1, None),
    ]
    ranks_only = make_run(c, "competitor", rows)
    # Mixed: scored entries first by score, then the unscored by rank.
    mixed = make_run(
        c,
        "mixed",
        [("q1", "a", 3, None), ("q1", "c", 1, 0.5), ("q1", "b", 2, 0.5), ("q1", "B", 9, 2.0)],
    )
    scored = make_run(
        c, "scored", [("q1", "d10", 1, 1.0), ("q1", "d9", 2, 1.0), ("q1", "e", 3, 2.0)]
    )
    by_name = {r.name: r for r in campaign_runs(campaign=c)}
    for run in (ranks_only, mixed, scored):
        expected = {q: list(docs) for q, docs in external_ids(run_order(run)).items()}
        assert engine_order(by_name[run.name].run) == expected, run.name
    assert by_name["competitor"].scored is False and by_name["scored"].scored is True
    assert engine_order(by_name["competitor"].run)["q1"] == ["a", "b", "B", "c"]
    assert engine_order(by_name["mixed"].run)["q1"] == ["B", "c", "b", "a"]
    assert engine_order(by_name["scored"].run)["q1"] == ["e", "d9", "d10"]


def test_a_label_source_is_taken_as_imported_and_must_be_the_campaigns(personas):
    c = personas.campaign
    source = LabelSource.objects.create(campaign=c, name="clicks")
    SourceLabel.objects.create(
        source=source, query=query(c, "q1"), document=document(c, "d1"), grade=4.0
    )
    SourceLabel.objects.create(
        source=source, query=query(c, "q1"), document=document(c, "d2"), grade=-1.0
    )
    qrels = campaign_qrels(campaign=c, source=source)
    assert as_external(qrels) == {"q1": {"d1": 4.0, "d2": -1.0}}
    assert qrels.rule == "source" and qrels.max_grade == 4.0  # above the scale's top grade
    foreign = LabelSource.objects.create(campaign=personas.other_campaign, name="x")
    with pytest.raises(ValueError, match="another campaign"):
        campaign_qrels(campaign=c, source=foreign)


def test_reading_runs_takes_the_same_number_of_queries_for_more_runs(personas):
    small = make_world(personas.campaign, run_names=("a", "b"), n_queries=3)
    big = make_world(
        personas.other_campaign,
        run_names=("a", "b", "c", "d", "e"),
        n_queries=9,
        rater_prefix="other",
    )
    counts = []
    for world in (small, big):
        with CaptureQueriesContext(connection) as ctx:
            vocab = vocabulary(campaign=world.campaign)
            runs = campaign_runs(campaign=world.campaign, vocab=vocab)
            campaign_qrels(campaign=world.campaign, rule="mean", vocab=vocab)
        counts.append(len(ctx.captured_queries))
        assert len(runs) == len(world.runs)
    assert counts[0] == counts[1]
    assert counts[0] <= 12


def test_many_tied_documents_are_ordered_by_their_ids_in_byte_order(personas):
    """Over a thousand entries with one score: their external ids are read in chunks (IN lists
    stay short) and decide the order, descending in byte order."""
    c = personas.campaign
    names = [f"doc{i}" for i in range(1200)] + ["Doc", "é"]
    make_run(c, "flat", [("q1", name, 1, 0.5) for name in names])
    (run,) = campaign_runs(campaign=c)
    expected = sorted(names, key=lambda n: n.encode(), reverse=True)
    assert engine_order(run.run)["q1"] == expected
