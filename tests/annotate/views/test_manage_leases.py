"""The lease page: who holds what, and releasing a rater's items."""

from __future__ import annotations

from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from annotate.judging.graded import queue_items
from annotate.models import Lease
from annotate.selectors.progress import live_leases
from tests.annotate.queue_helpers import build_pool, make_raters


def _url(personas, name: str) -> str:
    return reverse(f"annotate:{name}", kwargs={"slug": personas.campaign.slug})


def _setup(personas):
    campaign = personas.campaign
    build_pool(campaign, queries=3, docs_per_query=4)
    [second] = make_raters(campaign, 1, prefix="z")
    queue_items(rater=personas.rater, campaign=campaign)  # q0, 4 items
    queue_items(rater=second, campaign=campaign)  # q1, 4 items
    return second


def test_it_lists_who_holds_what(personas):
    second = _setup(personas)
    holdings = live_leases(campaign=personas.campaign).holdings
    assert [(h.username, h.query_external_id, h.items) for h in holdings] == [
        ("rater", "q0", 4),
        ("z0", "q1", 4),
    ]
    minutes = personas.campaign.lease_minutes
    assert timedelta(minutes=minutes - 1) < holdings[0].expires_at - timezone.now()
    assert holdings[0].expires_in.startswith(f"{minutes - 1} min")
    html = personas.client_for("manager").get(_url(personas, "manage_leases")).content.decode()
    assert 'data-rater="rater" data-query="q0"' in html
    assert 'data-rater="z0" data-query="q1"' in html
    assert html.count(">Release</button>") == 2
    assert second.pk


def test_expired_leases_are_not_listed(personas):
    _setup(personas)
    Lease.objects.filter(rater=personas.rater).update(expires_at=timezone.now())
    assert [h.username for h in live_leases(campaign=personas.campaign).holdings] == ["z0"]


def test_release_frees_only_that_raters_query(personas):
    second = _setup(personas)
    client = personas.client_for("manager")
    query_id = Lease.objects.filter(rater=personas.rater).first().pool_item.query_id
    response = client.post(
        _url(personas, "manage_release"),
        {"rater": personas.rater.pk, "query": query_id},
        follow=True,
    )
    assert response.redirect_chain[0][1] == 302
    assert "Released 4 item(s) held by rater" in response.content.decode()
    assert not Lease.objects.filter(rater=personas.rater).exists()
    assert Lease.objects.filter(rater=second).count() == 4


def test_release_without_a_query_frees_all_of_a_raters_items(personas):
    second = _setup(personas)
    response = personas.client_for("manager").post(
        _url(personas, "manage_release"), {"rater": second.pk}
    )
    assert response.status_code == 302
    assert not Lease.objects.filter(rater=second).exists()
    assert Lease.objects.filter(rater=personas.rater).count() == 4


def test_release_refuses_bad_input_and_changes_nothing(personas):
    _setup(personas)
    client = personas.client_for("manager")
    for data, message in [
        ({}, "Choose a rater"),
        ({"rater": "abc"}, "Choose a rater"),
        ({"rater": 999_999}, "No such rater"),
    ]:
        response = client.post(_url(personas, "manage_release"), data)
        assert response.status_code == 400
        assert message in response.content.decode()
    assert Lease.objects.count() == 8


def test_release_cannot_touch_another_campaigns_leases(personas):
    build_pool(personas.other_campaign, queries=1, docs_per_query=2)
    queue_items(rater=personas.other_rater, campaign=personas.other_campaign)
    response = personas.client_for("manager").post(
        _url(personas, "manage_release"), {"rater": personas.other_rater.pk}
    )
    assert response.status_code == 302
    assert Lease.objects.filter(rater=personas.other_rater).count() == 2
