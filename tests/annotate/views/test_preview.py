"""A manager previews the judging screen as raters see it, read only (#21): no lease is taken,
nothing can be stored, and nobody else can open it."""

from __future__ import annotations

import pytest

from annotate.models import Document, Grade, Lease, PoolItem, Query

pytestmark = pytest.mark.django_db


@pytest.fixture
def items(personas):
    campaign = personas.campaign
    query = Query.objects.create(campaign=campaign, external_id="q1", text="running shoes",
                                 description="road running")  # fmt: skip
    docs = [
        Document.objects.create(
            campaign=campaign, external_id=f"d{i}", title=f"Shoe {i}", snippet=f"snippet {i}"
        )
        for i in range(3)
    ]
    return [PoolItem.objects.create(campaign=campaign, query=query, document=d) for d in docs]


def test_a_manager_who_is_not_a_rater_is_sent_to_the_preview(personas, items):
    slug = personas.campaign.slug
    manager = personas.client_for("manager")
    response = manager.get(f"/judge/{slug}/")
    assert response.status_code == 302 and response["Location"] == f"/judge/{slug}/preview/"
    page = manager.get(f"/judge/{slug}/preview/?n=1").content.decode()
    assert 'data-testid="preview-banner"' in page and "Shoe 1" in page and "snippet 1" in page
    assert "road running" in page
    assert "judge.js" not in page and "preview.js" in page
    assert "?n=0" in page and "?n=2" in page  # previous and next
    assert not Lease.objects.exists()


def test_nothing_can_be_stored_from_the_preview(personas, items):
    slug = personas.campaign.slug
    manager = personas.client_for("manager")
    label = personas.campaign.labels.first()
    response = manager.post(f"/judge/{slug}/preview/", {"item": "x", "label": label.pk})
    assert response.status_code == 405
    assert not Grade.objects.exists() and not Lease.objects.exists()


@pytest.mark.parametrize("who", ["rater", "outsider"])
def test_only_managers_preview(personas, items, who):
    slug = personas.campaign.slug
    assert personas.client_for(who).get(f"/judge/{slug}/preview/").status_code == 404


def test_an_outsider_still_gets_a_404_on_the_queue(personas, items):
    slug = personas.campaign.slug
    assert personas.client_for("outsider").get(f"/judge/{slug}/").status_code == 404


def test_a_manager_previews_a_comparisons_tasks_read_only(personas):
    from annotate.models import TaskLease, Verdict
    from tests.annotate.sxs_helpers import distinct_lists, make_comparison, report_url

    comparison = make_comparison(personas.campaign, distinct_lists(3), min_queries=1)
    manager = personas.client_for("manager")
    queue = report_url(comparison, "sxs")
    response = manager.get(queue)
    assert response.status_code == 302 and response["Location"].endswith("/preview/")
    page = manager.get(response["Location"] + "?n=2").content.decode()
    assert 'data-testid="preview-banner"' in page and "sxs.js" not in page
    assert "q2-a0" in page and "q2-b0" in page  # both lists of the third query
    assert manager.post(response["Location"], {"task": "x", "chosen": "left"}).status_code == 405
    assert not Verdict.objects.exists() and not TaskLease.objects.exists()
    assert 'data-testid="sxs-preview-link"' in manager.get(report_url(comparison)).content.decode()
    for who in ("rater", "outsider"):
        assert personas.client_for(who).get(response["Location"]).status_code == 404
