"""Which items a judge labels, and the few-shot examples drawn from adjudicated items."""

from __future__ import annotations

import pytest

from annotate.models import Adjudication, Grade, Label
from llmjudge.items import builder_for, selected_items
from tests.llmjudge.helpers import make_items, make_judge
from tests.metrics.report_helpers import make_raters

pytestmark = pytest.mark.django_db


def pairs(judge) -> list[tuple[int, int]]:
    return [(i.query_id, i.document_id) for i in selected_items(judge)]


@pytest.fixture
def graded(personas):
    """Four items: one unjudged, one with agreeing raters, one disagreed on, one where the
    only disagreement is a "can't judge" (no grade)."""
    c = personas.campaign
    items = make_items(c, {("q1", "d1"): "", ("q1", "d2"): "", ("q2", "d3"): "", ("q2", "d4"): ""})
    a, b = make_raters(c, 2)
    good = Label.objects.get(campaign=c, name="Good")
    bad = Label.objects.get(campaign=c, name="Bad")
    Grade.objects.create(pool_item=items[1], rater=a, label=good)
    Grade.objects.create(pool_item=items[1], rater=b, label=good)
    Grade.objects.create(pool_item=items[2], rater=a, label=good)
    Grade.objects.create(pool_item=items[2], rater=b, label=bad)
    Grade.objects.create(pool_item=items[3], rater=a, label=bad)
    Grade.objects.create(pool_item=items[3], rater=b, cant_judge=True)
    return c, [(i.query_id, i.document_id) for i in items]


def test_the_scope_chooses_the_pool_the_unjudged_or_the_disagreed_items(graded):
    c, items = graded
    assert pairs(make_judge(c, "http://x/v1", name="all")) == items
    assert pairs(make_judge(c, "http://x/v1", name="new", scope="unjudged")) == [items[0]]
    assert pairs(make_judge(c, "http://x/v1", name="split", scope="disagreed")) == [items[2]]
    only_q2 = make_judge(c, "http://x/v1", name="q2", query_ids="q2, nope\n")
    assert pairs(only_q2) == items[2:]


def test_adjudicated_items_become_examples_and_are_not_judged(graded, personas):
    c, items = graded
    pool_items = list(c.pool_items.order_by("query__external_id", "document__external_id"))
    fair = Label.objects.get(campaign=c, name="Fair")
    Adjudication.objects.create(pool_item=pool_items[2], label=fair, manager=personas.manager)
    judge = make_judge(c, "http://x/v1", examples=3)
    assert pairs(judge) == [items[0], items[1], items[3]]
    prompt = builder_for(judge).messages(selected_items(judge)[0].text)[1]["content"]
    assert "Example 1: query [text of q2]; result titled 'title d3'" in prompt
    assert 'Answer: {"grade": 2.0}' in prompt and "Example 2" not in prompt
    without = make_judge(c, "http://x/v1", name="plain")
    assert builder_for(without).template_hash != builder_for(judge).template_hash


def test_text_stored_above_a_limit_goes_to_the_model_clamped(personas):
    """As to raters (issue 15): a query or snippet stored before a limit existed is not sent
    whole to a paid endpoint."""
    from annotate.models import Document, Query

    c = personas.campaign
    (item,) = make_items(c, {("q1", "d1"): ""})
    Query.objects.filter(pk=item.query_id).update(text="x" * 2_500)
    Document.objects.filter(pk=item.document_id).update(snippet="s" * 30_000)
    (selected,) = selected_items(make_judge(c, "http://x/v1", name="clamp"))
    assert selected.text.query == "x" * 2_000 + "…"
    assert selected.text.snippet == "s" * 20_000 + "…"
