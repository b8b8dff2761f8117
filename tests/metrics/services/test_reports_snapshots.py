"""Snapshots: kept while the inputs stay the same, recomputed on the next view when any input
changes (grades, rulings, the scale, runs, queries, a source's labels), one per labels and
settings, said so on the page with their age, and brought up to date by recompute_reports."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from annotate.models import Grade, LabelSource, Query, RunEntry, SourceLabel
from annotate.services.adjudication import adjudication_set
from metrics.models import EvaluationSnapshot, SnapshotKind
from metrics.reports.presenting import age_text
from metrics.reports.snapshot_charts import in_this_language
from metrics.services.scores import MeasureSettings
from metrics.services.snapshots import agreement_snapshot, dashboard_snapshots, scores_snapshot
from tests.metrics.report_helpers import make_world


@pytest.fixture
def world(personas):
    return make_world(personas.campaign, n_queries=4, run_names=("alpha", "beta"))


def scores(world, **kwargs):
    return scores_snapshot(campaign=world.campaign, settings=MeasureSettings(), **kwargs)


def test_a_snapshot_is_reused_until_its_inputs_change(world):
    first = scores(world)
    assert first.recomputed and first.replaced_at is None
    again = scores(world)
    assert not again.recomputed and again.snapshot.pk == first.snapshot.pk
    assert again.summary == first.summary


def change_grade(world):
    grade = Grade.objects.filter(pool_item__campaign=world.campaign, cant_judge=False).first()
    grade.label = world.campaign.labels.exclude(pk=grade.label_id).first()
    grade.save()


def delete_grade(world):
    Grade.objects.filter(pool_item__campaign=world.campaign).first().delete()


def rule_on_an_item(world):
    item = world.campaign.pool_items.order_by("pk").first()
    adjudication_set(
        campaign=world.campaign,
        manager=None,
        item_id=item.pk,
        label_id=world.campaign.labels.first().pk,
    )


def edit_the_scale(world):
    label = world.campaign.labels.get(name="Good")
    label.grade = 4
    label.save()


def replace_a_run(world):
    """As `import_run(replace=True)` does: the same run, its entries rewritten."""
    run = world.runs[0]
    rows = list(RunEntry.objects.filter(run=run).values("query_id", "document_id", "rank", "score"))
    RunEntry.objects.filter(run=run).delete()
    RunEntry.objects.bulk_create(RunEntry(run=run, **row) for row in rows)


def add_a_query(world):
    Query.objects.create(campaign=world.campaign, external_id="q99", text="new")


def change_the_level(world):
    world.campaign.relevant_from = 3
    world.campaign.save()


@pytest.mark.parametrize(
    "change",
    [
        change_grade,
        delete_grade,
        rule_on_an_item,
        edit_the_scale,
        replace_a_run,
        add_a_query,
        change_the_level,
    ],
)
def test_any_change_of_the_inputs_makes_it_stale(world, change):
    first = scores(world)
    change(world)
    fresh = scores(world)
    assert fresh.recomputed and fresh.replaced_at == first.snapshot.computed_at
    assert fresh.snapshot.pk == first.snapshot.pk  # updated in place, one row per key
    assert EvaluationSnapshot.objects.count() == 1


def test_a_source_snapshot_ignores_the_raters_and_follows_its_labels(world):
    c = world.campaign
    source = LabelSource.objects.create(campaign=c, name="clicks")
    q, d = world.queries[0], c.documents.first()
    SourceLabel.objects.create(source=source, query=q, document=d, grade=2)
    first = scores(world, source=source)
    change_grade(world)
    assert not scores(world, source=source).recomputed
    SourceLabel.objects.filter(source=source).delete()
    SourceLabel.objects.create(source=source, query=q, document=d, grade=3)  # a re-import
    assert scores(world, source=source).recomputed
    assert first.summary["rule"] == "source"


def test_one_snapshot_per_labels_and_settings(world):
    scores(world)
    scores(world, rule="majority")
    scores_snapshot(campaign=world.campaign, settings=MeasureSettings(k=5))
    agreement_snapshot(campaign=world.campaign)
    drawn = scores(world).snapshot.charts
    assert set(drawn) == {"en", "zh-hans"}  # drawn in each language of the interface
    assert set(in_this_language(drawn)) == {"bars", "curves"}
    keys = set(
        EvaluationSnapshot.objects.values_list("kind", "rule", "label_source", "settings_key")
    )
    default = MeasureSettings().key
    assert keys == {
        (SnapshotKind.SCORES, "mean", None, default),
        (SnapshotKind.SCORES, "majority", None, default),
        (SnapshotKind.SCORES, "mean", None, MeasureSettings(k=5).key),
        (SnapshotKind.AGREEMENT, "", None, ""),
    }


def test_the_progress_snapshot_follows_grades_skips_raters_and_the_pool(world, personas):
    from annotate.models import Membership, Role, Skip

    def progress():
        return dashboard_snapshots(campaign=world.campaign)[0]

    first = progress()
    assert first.recomputed
    assert set(in_this_language(first.snapshot.charts)) == {"timeline", "kappa"}  # stored
    replace_a_run(world)
    assert not progress().recomputed
    # An item the rater has not graded: one answer per rater and item, a skip included.
    item = world.campaign.pool_items.exclude(grades__rater=world.raters[0]).order_by("pk").first()
    assert item is not None
    for change in (
        lambda: Skip.objects.create(pool_item=item, rater=world.raters[0]),
        lambda: Membership.objects.create(
            campaign=world.campaign, user=personas.outsider, role=Role.RATER
        ),
        lambda: world.campaign.pool_items.filter(pk=item.pk).update(raters_needed=3),
        lambda: change_grade(world),
    ):
        change()
        assert progress().recomputed
        assert not progress().recomputed
    raters = {r["username"]: r for r in progress().summary["raters"]}
    assert raters["outsider"]["grades"] == 0 and raters["judge1"]["skips"] == 1


def test_the_agreement_snapshot_follows_the_grades_only(world):
    assert agreement_snapshot(campaign=world.campaign).recomputed
    replace_a_run(world)
    assert not agreement_snapshot(campaign=world.campaign).recomputed
    change_grade(world)
    assert agreement_snapshot(campaign=world.campaign).recomputed


def test_the_page_says_how_old_the_numbers_are(world, personas):
    client = personas.client_for("manager")
    address = reverse("metrics:systems", kwargs={"slug": world.campaign.slug})
    assert "Computed just now" in client.get(address).content.decode()
    EvaluationSnapshot.objects.update(computed_at=timezone.now() - timedelta(hours=3))
    body = client.get(address).content.decode()
    assert "From a snapshot computed 3\xa0hours ago" in body
    change_grade(world)
    body = client.get(address).content.decode()
    assert "Recomputed just now" in body and "computed 3\xa0hours ago" in body


def test_age_text_says_what_happened(world):
    fresh = scores(world)
    later = fresh.snapshot.computed_at + timedelta(minutes=5)
    assert age_text(fresh, now=later).startswith("Computed just now")
    assert "5\xa0minutes ago" in age_text(scores(world), now=later)


def test_recompute_reports_brings_every_snapshot_up_to_date(world):
    scores(world, rule="median")
    change_grade(world)
    out = io.StringIO()
    call_command("recompute_reports", "--campaign", world.campaign.slug, stdout=out)
    text = out.getvalue()
    assert "campaign-a: agreement: recomputed" in text
    assert "scores (median; k=10;gain=linear;discount=log2;ideal=judged): recomputed" in text
    assert "scores (mean; k=10" in text  # the default one is made too
    out = io.StringIO()
    call_command("recompute_reports", stdout=out)
    assert "recomputed" not in out.getvalue().split("campaign-b")[0]
    out = io.StringIO()
    call_command("recompute_reports", "--campaign", world.campaign.slug, "--force", stdout=out)
    assert "up to date" not in out.getvalue()
    with pytest.raises(CommandError, match="no campaign"):
        call_command("recompute_reports", "--campaign", "nope")


def test_settings_refuse_bad_values():
    for bad in (
        {"k": 0},
        {"k": 101},
        {"k": "5"},
        {"gain": "cubic"},
        {"discount": "ln"},
        {"ideal": "all"},
    ):
        with pytest.raises(ValueError):
            MeasureSettings(**bad)
    settings = MeasureSettings(k=3, gain="exponential", discount="jarvelin", ideal="retrieved")
    assert MeasureSettings.from_key(settings.key) == settings
