"""What must never happen is refused by the database itself, not only by forms."""

from __future__ import annotations

import threading

import pytest
from django.db import IntegrityError, connection, transaction

from annotate.models import (
    Comparison,
    Document,
    Grade,
    PoolItem,
    Query,
    Run,
    RunEntry,
    SxsTask,
    System,
    Verdict,
)


@pytest.fixture
def item(personas):
    campaign = personas.campaign
    query = Query.objects.create(campaign=campaign, external_id="q1", text="usb-c charger")
    doc = Document.objects.create(campaign=campaign, external_id="d1", title="Charger")
    return PoolItem.objects.create(campaign=campaign, query=query, document=doc)


def test_a_second_grade_by_the_same_rater_is_refused(personas, item):
    label = personas.campaign.labels.get(name="Good")
    Grade.objects.create(pool_item=item, rater=personas.rater, label=label)
    with pytest.raises(IntegrityError), transaction.atomic():
        Grade.objects.create(pool_item=item, rater=personas.rater, label=label)
    assert Grade.objects.count() == 1


def test_a_grade_needs_a_label_unless_it_is_cant_judge(personas, item):
    with pytest.raises(IntegrityError), transaction.atomic():
        Grade.objects.create(pool_item=item, rater=personas.rater, label=None, cant_judge=False)
    label = personas.campaign.labels.get(name="Bad")
    with pytest.raises(IntegrityError), transaction.atomic():
        Grade.objects.create(pool_item=item, rater=personas.rater, label=label, cant_judge=True)


def test_external_ids_are_unique_within_a_campaign_only(personas):
    Query.objects.create(campaign=personas.campaign, external_id="q1", text="a")
    Query.objects.create(campaign=personas.other_campaign, external_id="q1", text="a")
    with pytest.raises(IntegrityError), transaction.atomic():
        Query.objects.create(campaign=personas.campaign, external_id="q1", text="b")
    Document.objects.create(campaign=personas.campaign, external_id="d1")
    with pytest.raises(IntegrityError), transaction.atomic():
        Document.objects.create(campaign=personas.campaign, external_id="d1")


def test_a_document_appears_at_most_once_per_query_in_a_run(personas, item):
    system = System.objects.create(campaign=personas.campaign, name="prod")
    run = Run.objects.create(campaign=personas.campaign, system=system, name="prod-run")
    RunEntry.objects.create(run=run, query=item.query, document=item.document, rank=1, score=2.0)
    with pytest.raises(IntegrityError), transaction.atomic():
        RunEntry.objects.create(
            run=run, query=item.query, document=item.document, rank=2, score=1.0
        )


def test_one_verdict_per_rater_and_task(personas, item):
    system = System.objects.create(campaign=personas.campaign, name="prod")
    a = Run.objects.create(campaign=personas.campaign, system=system, name="a")
    b = Run.objects.create(campaign=personas.campaign, system=system, name="b")
    comparison = Comparison.objects.create(
        campaign=personas.campaign, name="a vs b", baseline=a, candidate=b
    )
    task = SxsTask.objects.create(comparison=comparison, query=item.query)
    Verdict.objects.create(task=task, rater=personas.rater, value="G", candidate_side="L")
    with pytest.raises(IntegrityError), transaction.atomic():
        Verdict.objects.create(task=task, rater=personas.rater, value="B", candidate_side="R")
    with pytest.raises(IntegrityError), transaction.atomic():
        Verdict.objects.create(task=task, rater=personas.other_rater, value="X", candidate_side="L")
    with pytest.raises(IntegrityError), transaction.atomic():
        Comparison.objects.create(campaign=personas.campaign, name="self", baseline=a, candidate=a)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_grades_for_one_item_store_exactly_one(personas, item):
    """Two connections insert the same (rater, item) at once: the unique index lets one win."""
    assert connection.vendor == "postgresql"
    label = personas.campaign.labels.get(name="Good")
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def submit() -> None:
        from django.db import connections

        try:
            with transaction.atomic():
                barrier.wait(timeout=10)
                Grade.objects.create(pool_item=item, rater=personas.rater, label=label)
            outcomes.append("stored")
        except IntegrityError:
            outcomes.append("refused")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["refused", "stored"]
    assert Grade.objects.filter(pool_item=item, rater=personas.rater).count() == 1


def test_a_whole_campaign_can_be_deleted_with_its_grades_and_comparisons(personas, item):
    """RESTRICT, not PROTECT: a label or run in use cannot go alone, but the campaign can."""
    from django.db.models import RestrictedError

    campaign = personas.campaign
    label = campaign.labels.get(name="Good")
    Grade.objects.create(pool_item=item, rater=personas.rater, label=label)
    system = System.objects.create(campaign=campaign, name="prod")
    a = Run.objects.create(campaign=campaign, system=system, name="a")
    b = Run.objects.create(campaign=campaign, system=system, name="b")
    Comparison.objects.create(campaign=campaign, name="a vs b", baseline=a, candidate=b)
    with pytest.raises(RestrictedError), transaction.atomic():
        label.delete()
    with pytest.raises(RestrictedError), transaction.atomic():
        a.delete()
    campaign.delete()
    assert not Grade.objects.exists()
    assert not Comparison.objects.exists()
