"""The Chinese demo (`demo --lang zh`): a zh-Hans campaign as complete as the English one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import call_command

from annotate import models as m
from annotate.selectors import campaign_overview
from tests.support.shared_rows import demo_for_module

pytestmark = pytest.mark.django_db
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def _built_zh(django_db_setup, django_db_blocker) -> Iterator[None]:
    """The Chinese demo, built once for the module's tests and rolled back after them (a few
    seconds a build; tests/support/shared_rows.py), as test_demo.py builds the English one."""
    with demo_for_module(django_db_blocker, "--lang", "zh"):
        yield


@pytest.fixture
def demo_zh(_built_zh, settings) -> m.Campaign:
    settings.DEBUG = True  # for the test that runs the command again
    return m.Campaign.objects.get(slug="demo-zh")


def test_the_chinese_demo_is_a_zh_hans_campaign_with_the_chinese_scale(demo_zh):
    assert demo_zh.language == "zh-hans"
    scale = list(demo_zh.labels.order_by("position").values_list("name", "grade"))
    assert scale == [("好", 3.0), ("一般", 2.0), ("差", 1.0)]
    assert "好" in demo_zh.guidelines and "一般" in demo_zh.guidelines


def test_its_searches_and_listings_are_chinese_and_as_many_as_the_english_ones(demo_zh):
    counts = campaign_overview(demo_zh)
    assert 25 <= counts["queries"] <= 35 and 250 <= counts["documents"] <= 350
    assert counts["grades"] > 0 and counts["verdicts"] > 0 and counts["comparisons"] == 1
    texts = list(demo_zh.queries.values_list("text", flat=True))
    assert "篮球鞋 男 透气" in texts
    assert all(HAN.search(text) for text in texts)
    documents = demo_zh.documents.all()
    assert all(HAN.search(d.title) and HAN.search(d.snippet) for d in documents)
    comments = m.Grade.objects.filter(pool_item__campaign=demo_zh).exclude(comment="")
    assert comments.exists() and all(HAN.search(g.comment) for g in comments)


def test_both_demos_live_side_by_side(demo_zh, settings):
    call_command("demo", stdout=StringIO(), stderr=StringIO())
    assert set(m.Campaign.objects.values_list("slug", flat=True)) == {"demo", "demo-zh"}
    assert m.Campaign.objects.get(slug="demo").labels.filter(name="Good").exists()
