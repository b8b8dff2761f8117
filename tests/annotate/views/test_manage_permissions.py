"""Every manager page and action, per persona: the campaign's manager may use it; its rater,
another campaign's manager and an outsider get a 404 (they must not even learn the campaign
exists); an anonymous visitor is sent to log in. Refused actions change nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotate.models import Campaign, Label, Lease, Membership, PoolItem
from tests.annotate.queue_helpers import build_pool

PAGES = ["manage_settings", "manage_scale", "manage_raters", "manage_leases"]
REFUSED = ["rater", "other_manager", "outsider", "other_rater"]


def _snapshot(campaign) -> tuple:
    campaign = Campaign.objects.get(pk=campaign.pk)
    return (
        campaign.name,
        campaign.overlap,
        campaign.relevant_from,
        sorted(Label.objects.filter(campaign=campaign).values_list("name", "grade", "key")),
        sorted(Membership.objects.filter(campaign=campaign).values_list("user_id", "role")),
        Lease.objects.filter(pool_item__campaign=campaign).count(),
        sorted(PoolItem.objects.filter(campaign=campaign).values_list("pk", "raters_needed")),
    )


def _actions(personas) -> list[tuple[str, dict]]:
    slug = personas.campaign.slug
    labels = list(personas.campaign.labels.all())
    scale = {
        "labels-TOTAL_FORMS": str(len(labels)),
        "labels-INITIAL_FORMS": str(len(labels)),
        "relevant_from": "2",
    }
    for i, label in enumerate(labels):
        scale |= {
            f"labels-{i}-id": label.pk,
            f"labels-{i}-name": f"X{label.name}",
            f"labels-{i}-grade": label.grade,
            f"labels-{i}-key": label.key,
            f"labels-{i}-ORDER": i + 1,
        }
    settings = {
        "name": "Renamed",
        "overlap": 3,
        "lease_minutes": 5,
        "aggregation": "median",
        "relevant_from": 2,
    }
    return [
        (reverse("annotate:manage_settings", kwargs={"slug": slug}), settings),
        (reverse("annotate:manage_scale", kwargs={"slug": slug}), scale),
        (reverse("annotate:manage_rater_add", kwargs={"slug": slug}), {"username": "outsider"}),
        (
            reverse(
                "annotate:manage_rater_remove",
                kwargs={"slug": slug, "user_id": personas.rater.pk},
            ),
            {},
        ),
        (
            reverse("annotate:manage_needed", kwargs={"slug": slug}),
            {"query": "q0", "raters_needed": 4},
        ),
        (
            reverse("annotate:manage_release", kwargs={"slug": slug}),
            {"rater": personas.rater.pk},
        ),
    ]


@pytest.fixture
def busy(personas):
    """Campaign A with a pool and the rater holding a query, so every action has work to do."""
    from annotate.judging.graded import queue_items

    build_pool(personas.campaign, queries=2, docs_per_query=2)
    queue_items(rater=personas.rater, campaign=personas.campaign)
    return personas


@pytest.mark.parametrize("page", PAGES)
def test_the_manager_sees_each_page(personas, page):
    url = reverse(f"annotate:{page}", kwargs={"slug": personas.campaign.slug})
    assert personas.client_for("manager").get(url).status_code == 200


@pytest.mark.parametrize("persona", REFUSED)
@pytest.mark.parametrize("page", PAGES)
def test_others_get_404_on_each_page(personas, page, persona):
    url = reverse(f"annotate:{page}", kwargs={"slug": personas.campaign.slug})
    assert personas.client_for(persona).get(url).status_code == 404


@pytest.mark.parametrize("page", PAGES)
def test_anonymous_visitors_are_sent_to_log_in(personas, page):
    url = reverse(f"annotate:{page}", kwargs={"slug": personas.campaign.slug})
    response = personas.client_for("anonymous").get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("persona", [*REFUSED, "anonymous"])
def test_refused_actions_change_nothing(busy, persona):
    before = _snapshot(busy.campaign)
    client = busy.client_for(persona)
    for url, data in _actions(busy):
        response = client.post(url, data)
        expected = 302 if persona == "anonymous" else 404
        assert response.status_code == expected, url
    assert _snapshot(busy.campaign) == before


def test_the_manager_may_do_each_action(busy):
    client = busy.client_for("manager")
    for url, data in _actions(busy):
        response = client.post(url, data)
        assert response.status_code == 302, (url, response.content[:2000])
    after = _snapshot(busy.campaign)
    assert after[0] == "Renamed"
    assert [name for name, _, _ in after[3]] == ["XBad", "XFair", "XGood"]


def test_actions_are_posts_only(personas):
    client = personas.client_for("manager")
    for url, _ in _actions(personas)[2:]:
        assert client.get(url).status_code == 405


def test_actions_need_a_csrf_token(busy):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(busy.manager)
    before = _snapshot(busy.campaign)
    for url, data in _actions(busy):
        assert client.post(url, data).status_code == 403
    assert _snapshot(busy.campaign) == before
