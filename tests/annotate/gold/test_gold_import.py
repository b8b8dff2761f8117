"""Gold from a file: TREC qrels or CSV with an explanation column; one transaction, and a bad
line reported as file:line: why with nothing changed."""

from __future__ import annotations

import io

import pytest

from annotate.models import GoldItem, PoolItem
from annotate.services.imports import ImportFailed
from annotate.services.imports.gold import import_gold
from tests.annotate.queue_helpers import build_pool


@pytest.fixture
def campaign(personas):
    build_pool(personas.campaign, queries=2, docs_per_query=2)
    return personas.campaign


def _file(text: str) -> io.BytesIO:
    return io.BytesIO(text.encode())


def _accepted(item: PoolItem) -> list[str]:
    return sorted(label.name for label in item.gold_entry.accepted.all())


def test_qrels_make_gold_each_lines_grade_accepted(campaign):
    text = "q0 0 q0-d0 3\nq0 0 q0-d0 2\n\nq1 0 q1-d1 1\n"
    summary = import_gold(campaign=campaign, file=_file(text), name="gold.qrels")
    assert summary.created == 2
    first = PoolItem.objects.get(query__external_id="q0", document__external_id="q0-d0")
    assert first.gold and first.gold_entry.label.name == "Good"
    assert _accepted(first) == ["Fair", "Good"]
    assert first.adjudication.label.name == "Good"


def test_csv_with_explanations_ranges_and_several_labels(campaign):
    text = (
        "query,document,label,explanation,purpose\n"
        'q0,q0-d0,Good|fair,"on topic, complete",honeypot\n'
        "q0,q0-d1,1..2,off topic,quiz\n"
    )
    import_gold(campaign=campaign, file=_file(text), name="gold.csv")
    first, second = (PoolItem.objects.get(document__external_id=d) for d in ("q0-d0", "q0-d1"))
    assert first.gold_entry.explanation == "on topic, complete"
    assert _accepted(first) == ["Fair", "Good"] and first.gold_entry.label.name == "Good"
    assert second.gold_entry.purpose == "quiz" and _accepted(second) == ["Bad", "Fair"]


@pytest.mark.parametrize(
    ("text", "where", "why"),
    [
        ("q0 0 q0-d0 3\nq0 0 nope 3\n", "gold.txt:2", "not a pair"),
        ("q0 0 q0-d0 3\nq0 0 q0-d1 7\n", "gold.txt:2", "not on the campaign's scale"),
        ("q0 0 q0-d0 3\nq0 q0-d1 3\n", "gold.txt:2", "expected 4 columns"),
        ("query,document,label\nq0,q0-d0,Good\n", "gold.txt:1", "explanation"),
        ("query,document,label,explanation\nq0,q0-d0,Good,x\nq0,q0-d0,Bad,y\n", "gold.txt:3",
         "earlier line"),
        ("query,document,label,explanation\nq0,q0-d0,Good,x\nq0,q0-d1,5..9,y\n", "gold.txt:3",
         "range"),
        ("query,document,label,explanation,purpose\nq0,q0-d0,Good,x,fun\n", "gold.txt:2",
         "honeypot or quiz"),
        ("query,document,label,explanation\nq0,q0-d0,Good\n", "gold.txt:2", "fields"),
    ],
)  # fmt: skip
def test_a_bad_line_is_named_and_nothing_is_stored(campaign, text, where, why):
    with pytest.raises(ImportFailed) as failed:
        import_gold(campaign=campaign, file=_file(text), name="gold.txt")
    assert str(failed.value).startswith(where + ": ") and why in str(failed.value)
    assert not GoldItem.objects.exists() and not PoolItem.objects.filter(gold=True).exists()
