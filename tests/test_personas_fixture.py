"""The personas fixture (tests/conftest.py) makes its rows once per module: what one test does to
them, in the database or to its instances, must not reach the next test. The tests run in file
order; the first changes everything the second checks."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from annotate.models import Campaign, Label, Membership

SEEN: list[dict] = []


def _state(personas) -> dict:
    return {
        "rater": get_user_model().objects.filter(pk=personas.rater.pk).values().get(),
        "campaign": Campaign.objects.filter(pk=personas.campaign.pk).values().get(),
        "labels": list(Label.objects.filter(campaign=personas.campaign).values()),
        "memberships": list(Membership.objects.order_by("pk").values()),
        "users": get_user_model().objects.count(),
    }


def test_a_test_changes_the_personas(personas):
    SEEN.append(_state(personas))
    personas.rater.first_name = "Changed"
    personas.rater.save()
    personas.manager.email = "unsaved@example.com"
    Campaign.objects.filter(pk=personas.campaign.pk).update(name="Renamed")
    Label.objects.filter(campaign=personas.campaign).delete()
    Membership.objects.filter(user=personas.other_rater).delete()
    get_user_model().objects.create_user(username="newcomer")
    personas.client_for("outsider")  # a login writes last_login and a session


def test_the_next_test_finds_them_as_they_were_made(personas):
    assert personas.rater.first_name == ""
    assert personas.manager.email == ""
    assert personas.campaign.created_by is personas.manager
    if SEEN:  # the first test ran before, in this process (not so under xdist, at times)
        assert _state(personas) == SEEN[0]
    assert personas.campaign.name == "Campaign A"
    assert Label.objects.filter(campaign=personas.campaign).count() == 3
    assert personas.outsider.last_login is None
