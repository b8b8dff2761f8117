from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Campaign, Membership


def test_it_creates_a_campaign_with_the_default_scale_and_roles(personas):
    call_command("campaign_create", "Web search Q4", "--manager", "outsider", "--rater", "rater")
    campaign = Campaign.objects.get(slug="web-search-q4")
    labels = [(label.name, label.grade, label.key) for label in campaign.labels.all()]
    assert labels == [("Good", 3.0, "g"), ("Fair", 2.0, "f"), ("Bad", 1.0, "b")]
    assert campaign.relevant_from == 2.0
    roles = dict(Membership.objects.filter(campaign=campaign).values_list("user__username", "role"))
    assert roles == {"outsider": "manager", "rater": "rater"}


def test_it_refuses_unknown_users_and_writes_nothing(personas):
    before = Campaign.objects.count()
    with pytest.raises(CommandError, match="no such user: ghost"):
        call_command("campaign_create", "X", "--manager", "ghost")
    assert Campaign.objects.count() == before


def test_it_refuses_a_duplicate_slug(personas):
    with pytest.raises(CommandError, match="already exists"):
        call_command("campaign_create", "Campaign A", "--slug", "campaign-a")
