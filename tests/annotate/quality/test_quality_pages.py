"""Raters' quality for managers (#18): the report page, its CSV, the actions on a rater, the
API (managers only), the per-rater figures against hand counts, and excluded answers leaving
aggregation, agreement and the reports with the count said."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotate.models import Grade, Lease, Membership, QualityEvent, SxsTask, Verdict
from annotate.selectors.quality import rater_quality
from annotate.services.aggregation import aggregate_qrels, qrels_stream
from annotate.services.campaigns import membership_set
from annotate.services.exports import export_grades, export_verdicts
from annotate.services.quality import answers_exclude
from metrics.decide.gsb import comparison_report, gsb_cli_rows
from metrics.decide.launch import launch_decision
from metrics.reports.views.raters import sparkline
from metrics.selectors.drilldown import query_drilldown
from metrics.services.agreement import agreement_compute
from metrics.services.label_sources_raters import rater_labels
from tests.annotate.judgment_data import grade, pool_item
from tests.annotate.sxs_helpers import distinct_lists, make_comparison, report_url
from tests.api.conftest import api_client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def graded(personas):
    """Three raters on four items: r and s agree everywhere, "=evil" (a formula-looking name)
    disagrees with them on every item, and answers fast."""
    campaign = personas.campaign
    evil = get_user_model().objects.create_user(username="=evil", password="x")
    sam = get_user_model().objects.create_user(username="sam", password="x")
    for user in (evil, sam):
        membership_set(campaign=campaign, user=user, role="rater")
    items = [pool_item(campaign, "q1", f"d{i}") for i in range(4)]
    for i, item in enumerate(items):
        grade(item, personas.rater, "Good", seconds=10.0 + i)
        grade(item, sam, "Good", seconds=5.0)
        grade(item, evil, "Bad", seconds=0.5)
    return campaign, evil, sam, items


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_figures_count_pairs_and_times_by_hand(graded, personas):
    campaign, evil, sam, _ = graded
    rows = {r.username: r for r in rater_quality(campaign)}
    # Each item has 3 raters: each rater has 2 pairs an item, 8 in all.
    assert (rows["rater"].agreement.k, rows["rater"].agreement.n) == (4, 8)
    assert (rows["=evil"].agreement.k, rows["=evil"].agreement.n) == (0, 8)
    assert rows["rater"].timing.median == 11.5
    assert (rows["=evil"].timing.fast.k, rows["=evil"].timing.fast.n) == (4, 4)
    assert rows["=evil"].label_distance == pytest.approx(2 / 3)  # all Bad vs 1/3 Bad
    assert rows["sam"].consistency.n == 0


def test_the_report_page_sorts_and_its_csv_is_formula_safe(graded, personas):
    campaign, evil, *_ = graded
    url = reverse("metrics:raters", kwargs={"slug": campaign.slug})
    page = _client(personas.manager).get(url + "?sort=-agreement")
    assert page.status_code == 200
    text = page.content.decode()
    assert text.index('data-rater="rater"') < text.index('data-rater="=evil"')
    download = _client(personas.manager).get(url + "?download=csv")
    assert download.status_code == 200
    rows = list(csv.reader(io.StringIO(download.content.decode())))
    assert rows[0][0] == "rater"
    assert rows[[r[0] for r in rows].index("'=evil")][:4] == ["'=evil", "4", "0", "8"]
    assert _client(personas.manager).get(url + "?download=xls").status_code == 400


def test_the_sparkline_is_drawn_for_a_rater_who_answered_on_two_days(graded, personas):
    campaign, evil, *_ = graded
    # "rater" took 10 and 11 s on d0 and d1 (one day), 12 and 13 s on d2 and d3 (the next):
    # daily medians 10.5 and 12.5, so the line rises from the bottom left to the top right.
    mine = Grade.objects.filter(rater=personas.rater)
    first, second = (
        dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC),
        dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC),
    )
    mine.filter(pool_item__document__external_id__in=["d0", "d1"]).update(created_at=first)
    mine.filter(pool_item__document__external_id__in=["d2", "d3"]).update(created_at=second)
    url = reverse("metrics:raters", kwargs={"slug": campaign.slug})
    text = _client(personas.manager).get(url).content.decode()

    def row(name: str) -> str:
        # Up to the next rater's row (a row holds the matrix's own table rows).
        start = text.index(f'data-rater="{name}"')
        end = text.find("data-rater=", start + 1)
        return text[start : end if end > 0 else len(text)]

    assert '<svg class="sparkline"' in row("rater")
    assert 'points="0.0,20.0 100.0,0.0"' in row("rater")
    # One day of answers is no line.
    assert "<polyline" not in row("=evil")


def test_sparkline_points_by_hand():
    # width 100, height 20; x steps 100 / (n - 1); y = 20 - (v - min) / (max - min) * 20.
    assert sparkline([("d1", 4.0), ("d2", 8.0), ("d3", 6.0)]) == "0.0,20.0 50.0,0.0 100.0,10.0"
    assert sparkline([("d1", 1.0), ("d2", 2.0)], width=10, height=4) == "0.0,4.0 10.0,0.0"
    # A flat line (no span) lies on the bottom edge; fewer than two days draw nothing.
    assert sparkline([("d1", 5.0), ("d2", 5.0)]) == "0.0,20.0 100.0,20.0"
    assert sparkline([("d1", 5.0)]) == "" and sparkline([]) == ""


@pytest.mark.parametrize("who", ["rater", "other_manager", "outsider"])
def test_only_the_campaigns_managers_see_or_act(graded, personas, who):
    campaign, evil, *_ = graded
    user = getattr(personas, who)
    client = _client(user)
    assert client.get(reverse("metrics:raters", kwargs={"slug": campaign.slug})).status_code == 404
    act = reverse(
        "metrics:rater_action",
        kwargs={"slug": campaign.slug, "user_id": evil.pk, "action": "pause"},
    )
    assert client.post(act).status_code == 404
    assert Membership.objects.get(campaign=campaign, user=evil).paused_at is None
    api = api_client_for(personas, who)
    assert api.get(f"/api/v1/campaigns/{campaign.slug}/raters/quality/").status_code == 404
    assert api.post(f"/api/v1/campaigns/{campaign.slug}/raters/{evil.pk}/pause/").status_code == 404
    assert Membership.objects.get(campaign=campaign, user=evil).paused_at is None
    anonymous = api_client_for(personas, "anonymous")
    assert anonymous.get(f"/api/v1/campaigns/{campaign.slug}/raters/quality/").status_code in (
        401,
        403,
    )


def test_a_manager_pauses_with_a_note_and_the_rater_loses_their_leases(graded, personas):
    campaign, evil, _, items = graded
    from django.utils import timezone

    Lease.objects.create(
        pool_item=pool_item(campaign, "q2", "dx"),
        rater=evil,
        expires_at=timezone.now() + timezone.timedelta(minutes=5),
    )
    api = api_client_for(personas, "manager")
    answer = api.post(
        f"/api/v1/campaigns/{campaign.slug}/raters/{evil.pk}/pause/",
        {"note": "copies answers"},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    assert answer.json()["paused"] is True and answer.json()["changed"] is True
    assert not Lease.objects.filter(rater=evil).exists()
    membership = Membership.objects.get(campaign=campaign, user=evil)
    assert membership.pause_reason == {"note": "copies answers"}
    assert membership.paused_by == personas.manager
    # The paused rater's pages say so; the API refuses work with the same message.
    page = _client(evil).get(reverse("annotate:judge", kwargs={"slug": campaign.slug}))
    assert page.status_code == 403 and b"rater-paused" in page.content
    home = _client(evil).get(reverse("annotate:home"))
    assert b"paused-notice" in home.content
    queue = api_client_for(personas, "manager")
    queue.force_authenticate(evil)
    refused = queue.get(f"/api/v1/campaigns/{campaign.slug}/queue/")
    assert refused.status_code == 403 and "paused" in refused.content.decode()
    figures = api.get(f"/api/v1/campaigns/{campaign.slug}/raters/quality/").json()
    row = next(r for r in figures["raters"] if r["rater"] == "=evil")
    assert row["paused"] and "copies answers" in row["pause_reason"]
    assert row["agreement"]["k"] == 0 and row["agreement"]["n"] == 8
    resumed = api.post(f"/api/v1/campaigns/{campaign.slug}/raters/{evil.pk}/resume/")
    assert resumed.json()["paused"] is False
    assert [e.action for e in QualityEvent.objects.order_by("pk")] == ["pause", "resume"]
    assert api.post(f"/api/v1/campaigns/{campaign.slug}/raters/{evil.pk}/nap/").status_code == 404
    assert api.post(f"/api/v1/campaigns/{campaign.slug}/raters/999999/pause/").status_code == 404


def test_excluded_answers_leave_aggregation_agreement_and_reports(graded, personas):
    campaign, evil, *_ = graded
    campaign.aggregation = "mean"
    campaign.save()
    before = aggregate_qrels(campaign=campaign)
    assert set(before.n.tolist()) == {3}
    client = _client(personas.manager)
    act = reverse(
        "metrics:rater_action",
        kwargs={"slug": campaign.slug, "user_id": evil.pk, "action": "exclude"},
    )
    assert client.post(act).status_code == 302
    after = aggregate_qrels(campaign=campaign)
    assert set(after.n.tolist()) == {2}
    assert set(after.grade.tolist()) == {3.0}  # only the two Goods
    streamed = list(qrels_stream(campaign=campaign).rows())
    assert {row[3] for row in streamed} == {2}
    assert agreement_compute(campaign=campaign)["n_ratings"] == 8
    for name in ("metrics:dashboard", "metrics:raters", "metrics:systems"):
        page = client.get(reverse(name, kwargs={"slug": campaign.slug}))
        assert page.status_code == 200, name
        assert b"excluded-note" in page.content and b"4 answers" in page.content, name


def test_excluded_verdicts_leave_the_gsb_figures_and_the_launch_decision(personas):
    """Side by side: one verdict per task; the rater answers q0-q5 Good for the candidate,
    "=evil" q6-q9 Bad. Once evil is excluded, their verdicts leave the counts, the GSB, the
    per-query rows and the launch decision (q6-q9 are no longer complete), and the report says
    how many answers were left out."""
    campaign = personas.campaign
    evil = get_user_model().objects.create_user(username="=evil", password="x")
    membership_set(campaign=campaign, user=evil, role="rater")
    comparison = make_comparison(campaign, distinct_lists(10), min_queries=4, raters_per_task=1)
    Verdict.objects.bulk_create(
        Verdict(
            task=task,
            rater=personas.rater if int(task.query.external_id[1:]) < 6 else evil,
            value="G" if int(task.query.external_id[1:]) < 6 else "B",
            candidate_side="L",
        )
        for task in comparison.tasks.select_related("query")
    )
    client = _client(personas.manager)

    def figures():
        page = client.get(report_url(comparison))
        assert page.status_code == 200
        r, launch = page.context["result"], page.context["launch"]
        rows = {row.external_id: (row.good, row.bad) for row in page.context["rows"]}
        return page, (r.good, r.same, r.bad, r.gsb), (launch.completed, launch.gsb), rows

    page, gsb, launch, rows = figures()
    assert gsb == (6, 0, 4, pytest.approx(0.2))
    assert launch == (10, pytest.approx(0.2))
    assert rows["q7"] == (0, 1)
    assert b"excluded-note" not in page.content
    act = reverse(
        "metrics:rater_action",
        kwargs={"slug": campaign.slug, "user_id": evil.pk, "action": "exclude"},
    )
    assert client.post(act).status_code == 302
    page, gsb, launch, rows = figures()
    assert gsb == (6, 0, 0, pytest.approx(1.0))
    assert launch == (6, pytest.approx(1.0))
    assert rows["q7"] == (0, 0) and rows["q1"] == (1, 0)
    assert b"excluded-note" in page.content and b"4 answers" in page.content
    # The same figures reach the launch decision and the CSV outside the page.
    assert launch_decision(comparison, comparison_report(comparison)).completed == 6
    download = client.get(report_url(comparison, "sxs_report_csv")).content.decode("utf-8-sig")
    measures = dict(row[:2] for row in csv.reader(io.StringIO(download)) if len(row) >= 2)
    assert (measures["rated_verdicts"], measures["good"], measures["bad"]) == ("6", "6", "0")


def test_the_rules_thresholds_are_set_per_campaign(graded, personas):
    campaign, *_ = graded
    url = reverse("metrics:raters_rules", kwargs={"slug": campaign.slug})
    client = _client(personas.manager)
    fields = {"min_consistency": 0.7, "min_pairs": 12, "max_fast_share": 0.2, "fast_seconds": 3}
    fields |= {"min_gold_answers": 10, "min_gold_within": 0.7, "min_gold_exact": 0.4}
    fields |= {"min_sxs_gold": 0.6}
    assert client.post(url, fields).status_code == 302
    campaign.refresh_from_db()
    assert (campaign.min_consistency, campaign.min_pairs) == (0.7, 12)
    assert (campaign.max_fast_share, campaign.fast_seconds) == (0.2, 3.0)
    bad = client.post(url, {**fields, "min_consistency": 1.5, "min_pairs": 20})
    assert bad.status_code == 400
    campaign.refresh_from_db()
    assert (campaign.min_consistency, campaign.min_pairs) == (0.7, 12)  # nothing changed
    assert _client(personas.other_manager).post(url, fields).status_code == 404


def test_the_disagreements_page_lists_and_counts_no_excluded_answers(personas):
    """rater Good and sam Bad disagree on d0; "=evil" (excluded) graded Fair there and also
    disagreed alone on d1, where the two others agree."""
    campaign = personas.campaign
    evil = get_user_model().objects.create_user(username="=evil", password="x")
    sam = get_user_model().objects.create_user(username="sam", password="x")
    for user in (evil, sam):
        membership_set(campaign=campaign, user=user, role="rater")
    split, agreed = pool_item(campaign, "q1", "d0"), pool_item(campaign, "q1", "d1")
    grade(split, personas.rater, "Good")
    grade(split, sam, "Bad")
    grade(split, evil, "Fair")
    grade(agreed, personas.rater, "Good")
    grade(agreed, sam, "Good")
    grade(agreed, evil, "Bad")
    client = _client(personas.manager)
    act = reverse(
        "metrics:rater_action",
        kwargs={"slug": campaign.slug, "user_id": evil.pk, "action": "exclude"},
    )
    assert client.post(act).status_code == 302
    url = reverse("metrics:disagreements", kwargs={"slug": campaign.slug})
    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    table = text[text.index('data-testid="disagreements"') : text.index("</table>")]
    assert f'data-item="{split.pk}"' in table and f'data-item="{agreed.pk}"' not in table
    assert "rater: Good" in table and "sam: Bad" in table
    assert "=evil" not in table
    assert 'data-testid="excluded-note"' in text and "2 answers" in text
    download = client.get(url + "?download=disagreements")
    rows = list(csv.reader(io.StringIO(download.content.decode())))
    assert [r[2] for r in rows[1:]] == ["rater: Good; sam: Bad"]
    assert "excluded raters left out: 2" in download["X-Report-Basis"]


def test_the_query_drilldown_labels_and_lists_no_excluded_answers(graded, personas):
    """The drilldown's label is the qrels' (the mean of rater's and sam's Good), not one with
    "=evil"'s Bad in it; the excluded grades are not listed, and the page says they are out."""
    campaign, evil, _sam, items = graded
    client = _client(personas.manager)
    act = reverse(
        "metrics:rater_action",
        kwargs={"slug": campaign.slug, "user_id": evil.pk, "action": "exclude"},
    )
    assert client.post(act).status_code == 302
    query = items[0].query
    drill = query_drilldown(campaign=campaign, query=query, k=10, rule="mean", source=None, runs=[])
    assert {d.external_id for d in drill.unretrieved} == {"d0", "d1", "d2", "d3"}
    for row in drill.unretrieved:
        assert row.label == 3.0
        assert [g.rater for g in row.grades] == ["rater", "sam"]
    client.get(reverse("metrics:raters", kwargs={"slug": campaign.slug}))  # the flash message
    url = reverse("metrics:query", kwargs={"slug": campaign.slug, "query_id": query.pk})
    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert 'data-testid="excluded-note"' in text and "4 answers" in text
    assert "=evil" not in text


def _exclude(campaign, rater, personas) -> None:
    answers_exclude(campaign=campaign, rater=rater, by=personas.manager)


def _verdicts(campaign, raters):
    """A comparison of two queries, each rater's Good-for-B on every task."""
    lists = {f"s{q}": pair for q, pair in distinct_lists(2).items()}  # not the pool's q1
    comparison = make_comparison(campaign, lists)
    tasks = list(SxsTask.objects.filter(comparison=comparison, identical=False))
    for task in tasks:
        for rater in raters:
            Verdict.objects.create(task=task, rater=rater, value="G", candidate_side="L")
    return comparison, tasks


def test_the_raw_exports_leave_out_excluded_answers(graded, personas):
    campaign, evil, sam, _items = graded
    _verdicts(campaign, [personas.rater, evil])
    _exclude(campaign, evil, personas)
    for export in (export_grades(campaign=campaign), export_verdicts(campaign=campaign)):
        rows = list(csv.DictReader(io.StringIO("".join(export.chunks))))
        assert rows and {r["rater"] for r in rows} <= {"rater", "sam"}, export.filename
        assert export.headers["X-Excluded-Raters"] == "1"
        assert "1 excluded rater(s) left out" in export.note


def test_the_gsb_cli_file_leaves_out_excluded_verdicts(graded, personas):
    campaign, evil, *_ = graded
    comparison, tasks = _verdicts(campaign, [personas.rater, evil])
    _exclude(campaign, evil, personas)
    rows, notes = gsb_cli_rows(comparison)
    raters = [row[2] for row in rows[1:] if row[-1] == "false"]
    assert raters == ["rater"] * len(tasks)
    assert any("1 excluded rater(s)" in note for note in notes)


def test_the_label_sources_compare_no_excluded_rater(graded, personas):
    campaign, evil, *_ = graded
    _exclude(campaign, evil, personas)
    assert set(rater_labels(campaign)) == {"rater:rater", "rater:sam"}


def test_the_api_lists_no_excluded_answers_to_a_manager(graded, personas):
    campaign, evil, *_ = graded
    comparison, tasks = _verdicts(campaign, [personas.rater, evil])
    _exclude(campaign, evil, personas)
    api = api_client_for(personas, "manager")
    for url in ("/api/v1/grades/", "/api/v1/verdicts/"):
        response = api.get(url, {"campaign": campaign.slug})
        assert response.status_code == 200
        rows = response.json()["results"]
        assert rows and "=evil" not in {row["rater"] for row in rows}, url
