"""THE ranking order (DESIGN.md section 4): score descending, ties by document id descending in
byte order, runs without scores by rank. Expected orders are written by hand, or come from a
plain-Python reference that sorts the UTF-8 bytes."""

from __future__ import annotations

import random

import numpy as np
import pytest
from django.db import connection

from annotate.ranking import byte_order_keys, ranked_entries, run_order, run_top_k
from tests.annotate.judgment_data import external_ids, make_run, query


def ordered(run, **kwargs):
    return external_ids(run_order(run, **kwargs))


def test_it_orders_by_score_descending(personas):
    run = make_run(personas.campaign, "r", [("q1", "a", 1, 1.0), ("q1", "b", 2, 3.0)])
    assert ordered(run) == {"q1": ["b", "a"]}


def test_it_breaks_score_ties_by_document_id_descending(personas):
    rows = [("q1", "d1", 1, 0.5), ("q1", "d10", 2, 0.5), ("q1", "d2", 3, 0.5), ("q1", "x", 4, 0.1)]
    run = make_run(personas.campaign, "r", rows)
    # Byte order, not numeric: "d2" > "d10" > "d1".
    assert ordered(run) == {"q1": ["d2", "d10", "d1", "x"]}


def test_ties_compare_bytes_not_a_locale(personas):
    # Bytes: "B" (0x42) < "a" (0x61) < "z" (0x7a) < "é" (0xc3 0xa9) < U+FFFF (0xef..) < 😀 (0xf0..).
    # A locale collation would put "a" before "B" and "é" before "z"; UTF-16 would put 😀 first.
    ids = ["a", "B", "z", "é", "\uffff", "\U0001f600", "Z"]
    run = make_run(personas.campaign, "r", [("q1", d, i, 2.0) for i, d in enumerate(ids)])
    assert ordered(run) == {"q1": ["\U0001f600", "\uffff", "é", "z", "a", "Z", "B"]}


def test_scores_are_64_bit(personas):
    # Equal in float32, different in float64: a 32-bit reader would tie them and put b first.
    rows = [("q1", "a", 1, 0.1 + 0.2), ("q1", "b", 2, 0.3)]
    run = make_run(personas.campaign, "r", rows)
    assert ordered(run) == {"q1": ["a", "b"]}


def test_the_rank_column_is_ignored_when_there_are_scores(personas):
    rows = [("q1", "a", 1, 0.1), ("q1", "b", 2, 0.9), ("q1", "c", 3, -5.0)]
    run = make_run(personas.campaign, "r", rows)
    assert ordered(run) == {"q1": ["b", "a", "c"]}


def test_a_run_without_scores_is_ordered_by_rank(personas):
    rows = [("q1", "a", 3, None), ("q1", "b", 1, None), ("q1", "c", 2, None)]
    run = make_run(personas.campaign, "r", rows)
    assert ordered(run) == {"q1": ["b", "c", "a"]}


def test_equal_ranks_without_scores_fall_back_to_document_id_descending(personas):
    rows = [("q1", "a", 1, None), ("q1", "c", 1, None), ("q1", "b", 2, None)]
    run = make_run(personas.campaign, "r", rows)
    assert ordered(run) == {"q1": ["c", "a", "b"]}


def test_in_a_mixed_query_scored_entries_come_before_unscored_ones(personas):
    rows = [("q1", "a", 1, None), ("q1", "b", 2, 0.1), ("q1", "c", 3, 0.2)]
    run = make_run(personas.campaign, "r", rows)
    assert ordered(run) == {"q1": ["c", "b", "a"]}


def test_queries_are_kept_apart(personas):
    rows = [("q2", "a", 1, 9.0), ("q1", "a", 1, 1.0), ("q1", "b", 2, 2.0), ("q2", "b", 2, 0.0)]
    run = make_run(personas.campaign, "r", rows)
    assert ordered(run) == {"q1": ["b", "a"], "q2": ["a", "b"]}


def test_top_k_cuts_each_query_in_that_order(personas):
    rows = [("q1", d, i, float(i)) for i, d in enumerate("abcde")] + [("q2", "a", 1, 1.0)]
    run = make_run(personas.campaign, "r", rows)
    assert external_ids(run_top_k(run, 2)) == {"q1": ["e", "d"], "q2": ["a"]}


def test_top_k_can_be_limited_to_some_queries(personas):
    rows = [("q1", "a", 1, 1.0), ("q2", "b", 1, 1.0), ("q3", "c", 1, 1.0)]
    run = make_run(personas.campaign, "r", rows)
    wanted = [query(personas.campaign, "q1"), query(personas.campaign, "q3").pk]
    assert external_ids(run_top_k(run, 5, queries=wanted)) == {"q1": ["a"], "q3": ["c"]}


def test_positions_count_from_one_in_ranking_order(personas):
    rows = [("q1", "a", 7, 1.0), ("q1", "b", 8, 2.0), ("q2", "c", 9, 1.0)]
    ranked = ranked_entries(make_run(personas.campaign, "r", rows))
    # q1 was created first, so it has the lower id and comes first.
    assert ranked.position.tolist() == [1, 2, 1]
    assert ranked.rank.tolist() == [8, 7, 9]
    assert ranked.score.tolist() == [2.0, 1.0, 1.0]
    assert np.isnan(ranked_entries(make_run(personas.campaign, "s", [("q1", "a", 1, None)])).score)


def test_it_refuses_a_depth_below_one(personas):
    run = make_run(personas.campaign, "r", [("q1", "a", 1, 1.0)])
    with pytest.raises(ValueError, match="at least 1"):
        run_top_k(run, 0)


def test_an_empty_run_has_no_order(personas):
    assert run_order(make_run(personas.campaign, "r", [])) == {}


def test_other_runs_and_campaigns_do_not_leak_in(personas):
    mine = make_run(personas.campaign, "r", [("q1", "a", 1, 1.0)])
    make_run(personas.campaign, "s", [("q1", "b", 1, 2.0)])
    make_run(personas.other_campaign, "r", [("q1", "c", 1, 3.0)])
    assert ordered(mine) == {"q1": ["a"]}


def test_it_agrees_with_a_plain_python_byte_sort_on_random_data(personas):
    rng = random.Random(7)
    alphabet = ["a", "b", "A", "Z", "0", "-", "é", "ß", "中", "\U0001f600", " "]
    docs = sorted({"".join(rng.choices(alphabet, k=rng.randint(1, 4))) for _ in range(150)})
    rows = []
    for qid in ("q1", "q2", "q3"):
        for i, did in enumerate(rng.sample(docs, 60)):
            rows.append((qid, did, i + 1, float(rng.choice([1, 2, 3, 0.5, -1.25]))))
    run = make_run(personas.campaign, "r", rows)

    expected: dict[str, list[str]] = {}
    for qid in ("q1", "q2", "q3"):
        mine = [(did, score) for q, did, _, score in rows if q == qid]
        # Two stable passes: document bytes descending, then score descending.
        mine.sort(key=lambda r: r[0].encode("utf-8"), reverse=True)
        mine.sort(key=lambda r: r[1], reverse=True)
        expected[qid] = [did for did, _ in mine]
    assert ordered(run) == expected


def test_python_keys_follow_utf8_byte_order():
    strings = ["b", "a", "é", "B", "\U0001f600", "\uffff", "a", ""]
    keys = byte_order_keys(strings)
    by_keys = [s for _, s in sorted(zip(keys.tolist(), strings, strict=True))]
    assert by_keys == sorted(strings, key=lambda s: s.encode("utf-8"))
    assert keys[1] == keys[6]  # equal strings, equal keys


@pytest.mark.postgres
def test_on_postgresql_a_locale_collated_column_still_sorts_by_bytes(personas):
    """The test database may well be created with a C collation; make the column locale-
    collated (inside the test's transaction, so it is rolled back) to prove the order does not
    depend on it."""
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute(
            "ALTER TABLE annotate_document ALTER COLUMN external_id TYPE varchar(300) "
            'COLLATE "und-x-icu"'
        )
        cursor.execute("SELECT 'a' < 'B' COLLATE \"und-x-icu\"")
        assert cursor.fetchone()[0] is True  # the locale order really differs from bytes
    ids = ["a", "B", "z", "é"]
    run = make_run(personas.campaign, "r", [("q1", d, i, 1.0) for i, d in enumerate(ids)])
    assert ordered(run) == {"q1": ["é", "z", "a", "B"]}


def test_without_a_byte_order_collation_it_sorts_in_python(personas, monkeypatch):
    import annotate.ranking

    monkeypatch.setattr(annotate.ranking, "byte_order", lambda field, using="default": None)
    ids = ["a", "B", "z", "é", "\U0001f600"]
    run = make_run(personas.campaign, "r", [("q1", d, i, 1.0) for i, d in enumerate(ids)])
    assert ordered(run) == {"q1": ["\U0001f600", "é", "z", "a", "B"]}
