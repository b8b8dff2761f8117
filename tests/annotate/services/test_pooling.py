"""Pooling: the union of the top `depth` of chosen runs per query, TREC-style; the command and
the manager's action on the campaign page."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotate.models import PoolItem
from annotate.services.pooling import pool_from_runs
from tests.annotate.judgment_data import make_run, pool_item
from tests.conftest import PERSONA_NAMES


def pooled(campaign) -> set[tuple[str, str]]:
    return set(
        PoolItem.objects.filter(campaign=campaign).values_list(
            "query__external_id", "document__external_id"
        )
    )


@pytest.fixture
def runs(personas):
    c = personas.campaign
    a = make_run(
        c,
        "A",
        [
            ("q1", "d1", 1, 0.9),
            ("q1", "d2", 2, 0.8),
            ("q1", "d3", 3, 0.8),  # ties d2 at 0.8: d3 > d2, so d3 is in the top 2
            ("q2", "d1", 1, 0.5),
            ("q2", "d4", 2, 0.4),
        ],
    )
    b = make_run(
        c,
        "B",
        [("q1", "d3", 1, 3.0), ("q1", "d4", 2, 2.0), ("q1", "d1", 3, 1.0), ("q2", "d5", 1, 1.0)],
    )
    return a, b


def test_it_pools_the_union_of_each_runs_top_k_per_query(personas, runs):
    result = pool_from_runs(campaign=personas.campaign, runs=list(runs), depth=2)
    assert pooled(personas.campaign) == {
        ("q1", "d1"),
        ("q1", "d3"),  # A's second place by the tie rule, B's first
        ("q1", "d4"),
        ("q2", "d1"),
        ("q2", "d4"),
        ("q2", "d5"),
    }
    assert (result.created, result.existing) == (6, 0)
    assert result.per_run == {"A": 4, "B": 3}
    assert result.pooled == 6


def test_pooling_twice_creates_nothing_new(personas, runs):
    pool_from_runs(campaign=personas.campaign, runs=list(runs), depth=2)
    again = pool_from_runs(campaign=personas.campaign, runs=list(runs), depth=2)
    assert (again.created, again.existing) == (0, 6)
    assert PoolItem.objects.filter(campaign=personas.campaign).count() == 6


def test_pooling_deeper_adds_only_the_difference(personas, runs):
    pool_from_runs(campaign=personas.campaign, runs=[runs[0]], depth=1)
    deeper = pool_from_runs(campaign=personas.campaign, runs=[runs[0]], depth=3)
    assert (deeper.created, deeper.existing) == (3, 2)


def test_existing_items_keep_their_settings(personas, runs):
    item = pool_item(personas.campaign, "q1", "d1")
    item.raters_needed = 5
    item.origin = PoolItem.Origin.MANUAL
    item.save()
    result = pool_from_runs(campaign=personas.campaign, runs=[runs[0]], depth=1, raters_needed=2)
    item.refresh_from_db()
    assert (item.raters_needed, item.origin) == (5, PoolItem.Origin.MANUAL)
    assert (result.created, result.existing) == (1, 1)
    new = PoolItem.objects.get(query__external_id="q2", document__external_id="d1")
    assert (new.raters_needed, new.origin) == (2, PoolItem.Origin.POOLING)


def test_new_items_follow_the_campaigns_overlap_by_default(personas, runs):
    pool_from_runs(campaign=personas.campaign, runs=[runs[0]], depth=1)
    personas.campaign.overlap = 3
    personas.campaign.save()
    item = PoolItem.objects.filter(campaign=personas.campaign).first()
    assert item.raters_needed is None
    assert item.needed == 3


def test_a_run_without_scores_is_cut_by_rank(personas):
    run = make_run(personas.campaign, "ranks", [("q1", "x", 2, None), ("q1", "y", 1, None)])
    pool_from_runs(campaign=personas.campaign, runs=[run], depth=1)
    assert pooled(personas.campaign) == {("q1", "y")}


def test_it_warns_about_placeholder_documents(personas):
    run = make_run(
        personas.campaign,
        "P",
        [("q1", "known", 1, 2.0), ("q1", "ghost", 2, 1.0), ("q1", "deep-ghost", 3, 0.0)],
        placeholders=["ghost", "deep-ghost"],
    )
    result = pool_from_runs(campaign=personas.campaign, runs=[run], depth=2)
    assert result.placeholders == 1
    assert result.placeholder_examples == ["ghost"]
    assert "1 pooled document is known by id only (ghost)" in result.warnings()[0]


def test_it_never_pools_into_another_campaign(personas, runs):
    foreign = make_run(personas.other_campaign, "X", [("q1", "d1", 1, 1.0)])
    with pytest.raises(ValueError, match="another campaign"):
        pool_from_runs(campaign=personas.campaign, runs=[runs[0], foreign], depth=1)
    assert PoolItem.objects.count() == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"depth": 0}, "depth"), ({"depth": 1, "raters_needed": 0}, "raters"), ({"depth": 1}, "")],
)
def test_it_refuses_bad_arguments(personas, runs, kwargs, message):
    chosen = [] if not message else list(runs)
    with pytest.raises(ValueError, match=message or "at least one run"):
        pool_from_runs(campaign=personas.campaign, runs=chosen, **kwargs)


# The command ---------------------------------------------------------------------------------


def test_the_command_pools_and_prints_a_summary(personas, runs, capsys):
    call_command("pool", "--campaign", "campaign-a", "--run", "A", "--run", "B", "--depth", "2")
    out = capsys.readouterr().out
    assert "Pooled 6 query-document pairs at depth 2 (6 new, 0 already in the pool" in out
    assert "A: 4, B: 3" in out
    call_command("pool", "--campaign", "campaign-a", "--run", "A", "--depth", "2", "--raters", "3")
    assert "(0 new, 4 already in the pool" in capsys.readouterr().out


def test_the_command_prints_placeholder_warnings(personas, capsys):
    make_run(personas.campaign, "P", [("q1", "ghost", 1, 1.0)], placeholders=["ghost"])
    call_command("pool", "--campaign", "campaign-a", "--run", "P", "--depth", "5")
    assert "known by id only (ghost)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--campaign", "nope", "--run", "A", "--depth", "2"], "no campaign with slug 'nope'"),
        (["--campaign", "campaign-a", "--run", "Z", "--depth", "2"], "no run named Z"),
        (["--campaign", "campaign-a", "--run", "A", "--depth", "0"], "--depth must be at least"),
        (["--campaign", "campaign-a", "--run", "A", "--depth", "1", "--raters", "0"], "--raters"),
        (["--campaign", "campaign-b", "--run", "A", "--depth", "2"], "no run named A"),
    ],
)
def test_the_command_rejects_bad_input_without_a_traceback(personas, runs, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("pool", *args)
    assert PoolItem.objects.count() == 0


# The manager's action ------------------------------------------------------------------------


def post_pool(client, runs, /, *, follow=False, **data):
    payload = {"runs": [r.pk for r in runs], "depth": 2, "raters_needed": "", **data}
    url = reverse("annotate:pool", kwargs={"slug": "campaign-a"})
    return client.post(url, payload, follow=follow)


def test_a_manager_pools_from_the_campaign_page(personas, runs):
    client = personas.client_for("manager")
    page = client.get(reverse("annotate:campaign", kwargs={"slug": "campaign-a"}))
    assert b'id="pooling"' in page.content
    assert b'name="runs" value="%d"' % runs[0].pk in page.content
    response = post_pool(client, runs, raters_needed="2", follow=True)
    assert response.redirect_chain[-1][0].endswith("/campaigns/campaign-a/#pooling")
    assert "Pooled 6 query-document pairs at depth 2 (6 new" in response.content.decode()
    assert set(PoolItem.objects.values_list("raters_needed", flat=True)) == {2}


def test_a_chinese_manager_reads_pooling_in_chinese(personas, runs):
    """The outcome and its warning are messages of the page: in the manager's language."""
    client = personas.client_for("manager")
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-CN"  # the browser asks for Chinese
    response = post_pool(client, runs, follow=True)
    text = response.content.decode()
    assert "已在深度 2 汇集 6 个查询-文档对（新增 6 个" in text
    assert "Pooled" not in text


def test_the_page_shows_placeholder_warnings(personas):
    run = make_run(personas.campaign, "P", [("q1", "ghost", 1, 1.0)], placeholders=["ghost"])
    response = post_pool(personas.client_for("manager"), [run], follow=True)
    assert 'class="message warning"' in response.content.decode()
    assert "known by id only (ghost)" in response.content.decode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"depth": 0}, "Depth: Ensure this value is greater than or equal to 1."),
        ({"runs": []}, "Runs: Choose at least one run."),
        ({"runs": ["99999"]}, "Select a valid choice. 99999 is not one of the available choices."),
    ],
)
def test_the_page_reports_form_errors(personas, runs, data, message):
    chosen = [] if "runs" in data else list(runs)
    response = post_pool(personas.client_for("manager"), chosen, follow=True, **data)
    assert 'class="message error"' in response.content.decode()
    assert message in response.content.decode()
    assert PoolItem.objects.count() == 0


def test_a_manager_cannot_pool_another_campaigns_run(personas, runs):
    foreign = make_run(personas.other_campaign, "X", [("q1", "d1", 1, 1.0)])
    response = post_pool(personas.client_for("manager"), [foreign], follow=True)
    assert 'class="message error"' in response.content.decode()
    assert PoolItem.objects.count() == 0


@pytest.mark.parametrize("name", [n for n in PERSONA_NAMES if n != "manager"])
def test_only_the_campaigns_manager_may_pool(personas, runs, name):
    response = post_pool(personas.client_for(name), runs)
    if name == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
    else:
        assert response.status_code == 404
    assert PoolItem.objects.count() == 0


def test_pooling_needs_a_post(personas):
    url = reverse("annotate:pool", kwargs={"slug": "campaign-a"})
    assert personas.client_for("manager").get(url).status_code == 405
