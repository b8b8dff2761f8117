"""The demo command: a realistic campaign, built once, rebuilt on request (test_demo_command.py:
never on a server)."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db.models import Count
from django.test import Client

from annotate import models as m
from annotate.demo.build import BASELINE, CANDIDATE, DEMO_SLUG
from annotate.ranking import run_top_k
from annotate.selectors import campaign_overview, is_manager
from tests.support.shared_rows import demo_for_module

pytestmark = pytest.mark.django_db


def run_demo(*args: str) -> str:
    out = StringIO()
    call_command("demo", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def counts() -> dict[str, int]:
    campaign = m.Campaign.objects.get(slug=DEMO_SLUG)
    return {
        **campaign_overview(campaign),
        "users": get_user_model().objects.count(),
        "campaigns": m.Campaign.objects.count(),
        "entries": m.RunEntry.objects.count(),
        "tasks": m.SxsTask.objects.count(),
        "history": m.GradeChange.objects.count(),
        "skips": m.Skip.objects.count(),
    }


@pytest.fixture(scope="module")
def _built(django_db_setup, django_db_blocker) -> Iterator[None]:
    """The demo, built once for the module's tests and rolled back after them (a second a
    build; tests/support/shared_rows.py). What a test changes, a rebuild among it, is undone
    by the test's own transaction. The command's runs on a database without the demo are in
    test_demo_command.py."""
    with demo_for_module(django_db_blocker):
        yield


@pytest.fixture
def demo(_built, settings) -> m.Campaign:
    settings.DEBUG = True  # for the tests that run the command again
    return m.Campaign.objects.get(slug=DEMO_SLUG)


def test_it_builds_a_campaign_of_realistic_size(demo):
    c = counts()
    assert 25 <= c["queries"] <= 35
    assert 250 <= c["documents"] <= 350
    assert c["systems"] == 2 and c["runs"] == 2 and c["comparisons"] == 1
    assert c["pool_items"] > c["queries"] * 10  # the union of two different top 10s
    assert c["grades"] > 0 and c["verdicts"] > 0
    assert c["raters"] == 2
    assert demo.overlap == 2
    assert "Good" in demo.guidelines and "Fair" in demo.guidelines and "Bad" in demo.guidelines


def test_running_it_twice_duplicates_nothing(demo):
    before = counts()
    output = run_demo()
    assert "already present" in output
    assert counts() == before


def test_reset_rebuilds_without_duplicates(demo):
    before = counts()
    old_pk = demo.pk
    run_demo("--reset")
    assert counts() == before
    assert m.Campaign.objects.get(slug=DEMO_SLUG).pk != old_pk


def test_it_is_deterministic(demo):
    def snapshot() -> tuple[list, list, list]:
        documents = m.Document.objects.order_by("external_id").values_list("title", "snippet")
        entries = m.RunEntry.objects.order_by("run__name", "query__external_id", "rank")
        grades = m.Grade.objects.order_by(
            "rater__username", "pool_item__query__external_id", "pool_item__document__external_id"
        )
        return (
            list(documents),
            list(entries.values_list("run__name", "document__external_id", "score")),
            list(grades.values_list("pool_item__document__external_id", "label__name", "seconds")),
        )

    before = snapshot()
    run_demo("--reset")
    assert snapshot() == before


@pytest.mark.parametrize("username", ["manager", "rater1", "rater2"])
def test_the_accounts_log_in_with_password_demo(demo, username):
    assert Client().login(username=username, password="demo")


def test_roles_of_the_accounts(demo):
    users = {u.username: u for u in get_user_model().objects.all()}
    assert is_manager(users["manager"], demo)
    assert users["manager"].is_staff and not users["manager"].is_superuser
    for name in ("rater1", "rater2"):
        assert not is_manager(users[name], demo)
        assert not users[name].is_staff
        assert demo.memberships.filter(user=users[name], role=m.Role.RATER).exists()


def test_the_manager_can_use_the_admin_on_the_demo(demo):
    client = Client()
    client.login(username="manager", password="demo")
    response = client.get("/admin/annotate/grade/")
    assert response.status_code == 200
    assert "rater1" in response.content.decode()


def test_the_candidate_ranks_differently_on_most_queries(demo):
    baseline = run_top_k(demo.runs.get(name=BASELINE), 10)
    candidate = run_top_k(demo.runs.get(name=CANDIDATE), 10)
    assert baseline.keys() == candidate.keys()
    differ = sum(list(baseline[q]) != list(candidate[q]) for q in baseline)
    assert differ >= 0.8 * len(baseline)
    # ...but not on all: identical lists are marked as such on the side-by-side tasks.
    identical = {t.query_id for t in m.SxsTask.objects.filter(identical=True)}
    assert identical == {q for q in baseline if list(baseline[q]) == list(candidate[q])}
    assert identical


def test_runs_have_ten_to_twenty_entries_per_query(demo):
    per_query = m.RunEntry.objects.values("run", "query").annotate(n=Count("pk"))
    assert {row["n"] for row in per_query} <= set(range(10, 21))
    assert len(per_query) == 2 * demo.queries.count()


def test_the_pool_is_the_union_of_both_top_tens(demo):
    expected = set()
    for run in demo.runs.all():
        for query, docs in run_top_k(run, 10).items():
            expected |= {(query, int(d)) for d in docs}
    pooled = set(m.PoolItem.objects.values_list("query_id", "document_id"))
    assert pooled == expected


def test_grades_are_for_the_campaigns_pool_items_once_per_rater(demo):
    grades = m.Grade.objects.all()
    assert grades.exclude(pool_item__campaign=demo).count() == 0
    assert grades.values("pool_item", "rater").distinct().count() == grades.count()
    labelled = grades.filter(cant_judge=False)
    assert labelled.exclude(label__campaign=demo).count() == 0
    assert grades.filter(cant_judge=True, label__isnull=True).exists()
    by_rater = dict(grades.values_list("rater__username").annotate(n=Count("pk")))
    pool = m.PoolItem.objects.count()
    assert 0.5 * pool <= by_rater["rater1"] <= 0.7 * pool
    assert 0.3 * pool <= by_rater["rater2"] <= 0.5 * pool
    # Some items have both raters, so agreement can be measured.
    assert grades.values("pool_item").annotate(n=Count("pk")).filter(n=2).exists()
    assert all(0 < s <= 120 for s in grades.values_list("seconds", flat=True))


def test_verdicts_follow_the_systems_quality(demo):
    verdicts = m.Verdict.objects.all()
    assert verdicts.filter(task__identical=True).count() == 0
    assert verdicts.values("task", "rater").distinct().count() == verdicts.count()
    values = dict(verdicts.values_list("value").annotate(n=Count("pk")))
    assert values[m.VerdictValue.GOOD] > values[m.VerdictValue.BAD] > 0
    sides = set(verdicts.values_list("candidate_side", flat=True))
    assert sides == {m.Side.LEFT, m.Side.RIGHT}
    assert verdicts.exclude(strength=None).exists() and verdicts.exclude(reason="").exists()
    assert verdicts.filter(value=m.VerdictValue.SAME).exclude(strength=None).count() == 0


def test_an_existing_password_is_kept_unless_reset(demo):
    user = get_user_model().objects.get(username="rater1")
    user.set_password("changed-by-rater")
    user.save()
    run_demo()
    assert Client().login(username="rater1", password="changed-by-rater")
    run_demo("--reset")
    assert Client().login(username="rater1", password="demo")
