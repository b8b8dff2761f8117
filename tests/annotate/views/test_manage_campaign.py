"""Creating a campaign from the web UI, and editing its settings and guidelines."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotate.models import Campaign, Membership, Role
from tests.support.forms import form_as_shown

NEW = {
    "name": "Shoes search",
    "slug": "",
    "description": "Autumn test",
    "guidelines": "Judge *relevance*.",
    "overlap": 3,
    "lease_minutes": 20,
    "aggregation": "median",
    "relevant_from": 2,
}


@pytest.fixture
def staff(personas):
    user = get_user_model().objects.create_user(username="staff", password="x", is_staff=True)
    client = Client()
    client.force_login(user)
    return user, client


def test_staff_create_a_campaign_and_become_its_manager(staff):
    user, client = staff
    assert client.get(reverse("annotate:manage_new")).status_code == 200
    response = client.post(reverse("annotate:manage_new"), NEW)
    assert response.status_code == 302
    campaign = Campaign.objects.get(slug="shoes-search")
    assert response["Location"] == campaign.get_absolute_url()
    assert (campaign.overlap, campaign.lease_minutes, campaign.aggregation) == (3, 20, "median")
    assert campaign.guidelines == "Judge *relevance*."
    assert Membership.objects.get(campaign=campaign, user=user).role == Role.MANAGER
    assert [x.name for x in campaign.labels.all()] == ["Good", "Fair", "Bad"]
    assert client.get(campaign.get_absolute_url()).status_code == 200


def test_superusers_may_create_campaigns(personas):
    admin = get_user_model().objects.create_superuser(username="root", password="x")
    client = Client()
    client.force_login(admin)
    assert client.post(reverse("annotate:manage_new"), NEW).status_code == 302


@pytest.mark.parametrize("persona", ["manager", "rater", "outsider"])
def test_it_refuses_creation_to_users_who_are_not_staff(personas, persona):
    client = personas.client_for(persona)
    assert client.get(reverse("annotate:manage_new")).status_code == 403
    assert client.post(reverse("annotate:manage_new"), NEW).status_code == 403
    assert not Campaign.objects.filter(name="Shoes search").exists()


def test_anonymous_visitors_are_sent_to_log_in_to_create(personas):
    response = personas.client_for("anonymous").post(reverse("annotate:manage_new"), NEW)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_campaign_list_offers_creation_to_staff_only(staff, personas):
    _, client = staff
    assert b"Create campaign" in client.get(reverse("annotate:campaign_list")).content
    page = personas.client_for("manager").get(reverse("annotate:campaign_list"))
    assert b"Create campaign" not in page.content


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"slug": "campaign-a"}, "already exists"),
        ({"slug": "new"}, "reserved"),
        ({"name": ""}, "required"),
        ({"overlap": 0}, "greater than or equal to 1"),
        ({"relevant_from": 7}, "between them"),
        ({"aggregation": "mode"}, "not one of the available choices"),
        ({"lease_minutes": "soon"}, "Enter a whole number"),
    ],
)
def test_it_refuses_bad_campaigns_with_a_message(staff, change, message):
    _, client = staff
    count = Campaign.objects.count()
    response = client.post(reverse("annotate:manage_new"), NEW | change)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Campaign.objects.count() == count


def _settings_url(personas) -> str:
    return reverse("annotate:manage_settings", kwargs={"slug": personas.campaign.slug})


def test_the_manager_edits_settings_and_guidelines(personas):
    client = personas.client_for("manager")
    data = NEW | {"name": "A renamed", "guidelines": "# Rules\n\nBe **fair**."}
    response = client.post(_settings_url(personas), data)
    assert response.status_code == 302
    campaign = Campaign.objects.get(pk=personas.campaign.pk)
    assert (campaign.name, campaign.overlap, campaign.slug) == ("A renamed", 3, "campaign-a")
    page = client.get(_settings_url(personas)).content.decode()
    assert "<h1>Rules</h1>" in page
    assert "<strong>fair</strong>" in page


def test_preview_renders_safely_and_saves_nothing(personas):
    client = personas.client_for("manager")
    evil = (
        "Hello **there**\n\n<script>alert(1)</script>\n\n"
        '[click](javascript:alert(2)) <img src=x onerror="alert(3)">'
    )
    response = client.post(_settings_url(personas), NEW | {"guidelines": evil, "preview": "1"})
    assert response.status_code == 200
    preview = response.content.decode().split('data-testid="guidelines-preview">')[1]
    assert "<strong>there</strong>" in preview
    assert "<script" not in preview
    assert "javascript:" not in preview
    assert "onerror" not in preview
    assert Campaign.objects.get(pk=personas.campaign.pk).guidelines == ""


def test_settings_refuse_a_relevant_from_outside_the_scale(personas):
    client = personas.client_for("manager")
    response = client.post(_settings_url(personas), NEW | {"relevant_from": 3.5})
    assert response.status_code == 400
    assert "between them (1 to 3)" in response.content.decode()
    assert Campaign.objects.get(pk=personas.campaign.pk).relevant_from == 2


def test_settings_refuse_bad_numbers_without_saving(personas):
    client = personas.client_for("manager")
    response = client.post(_settings_url(personas), NEW | {"overlap": "-1", "name": "Changed"})
    assert response.status_code == 400
    assert Campaign.objects.get(pk=personas.campaign.pk).name == "Campaign A"


def test_a_slug_taken_at_the_last_moment_is_a_form_error(staff, monkeypatch):
    from django.db import IntegrityError

    from annotate.views import manage_campaign

    def taken(**kwargs):
        raise IntegrityError("duplicate key value violates unique constraint")

    monkeypatch.setattr(manage_campaign, "campaign_open", taken)
    _, client = staff
    response = client.post(reverse("annotate:manage_new"), NEW)
    assert response.status_code == 400
    assert "already exists" in response.content.decode()


def test_the_settings_page_saves_the_campaigns_language(personas):
    # The form had the field but the service dropped it: the choice looked unsaved.
    from django.urls import reverse

    from annotate.models import Campaign

    url = reverse("annotate:manage_settings", kwargs={"slug": "campaign-a"})
    client = personas.client_for("manager")
    data = form_as_shown(client, url)
    data["language"] = "zh-hans"
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Campaign.objects.get(pk=personas.campaign.pk).language == "zh-hans"


# A campaign's own text is bounded (annotate.inputs: campaign_description 5,000, guidelines
# 100,000, image_hosts 2,000): the guidelines go to every rater's judging page, the image hosts
# into its CSP header. Before, 50 MB of guidelines were taken.
LONG_TEXT = [
    ("description", "d" * 5_001, "5,001 characters long; the limit is 5,000"),
    ("guidelines", "g" * 100_001, "100,001 characters long; the limit is 100,000"),
    ("image_hosts", "a.example.com\n" * 200, "2,799 characters long; the limit is 2,000"),
]


@pytest.mark.parametrize(("field", "text", "message"), LONG_TEXT, ids=[t[0] for t in LONG_TEXT])
def test_settings_refuse_text_above_its_limit(personas, field, text, message):
    response = personas.client_for("manager").post(_settings_url(personas), NEW | {field: text})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert getattr(Campaign.objects.get(pk=personas.campaign.pk), field) == ""


def test_the_limits_hold_in_the_api_and_the_admin(personas, staff, settings):
    settings.INPUT_LIMITS = {"guidelines": 10}
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(staff[0])
    body = {"name": "Long", "slug": "long", "guidelines": "g" * 11}
    response = api.post("/api/v1/campaigns/", body, format="json")
    assert response.status_code == 400
    assert "the limit is 10" in response.json()["errors"]["guidelines"][0]
    assert not Campaign.objects.filter(slug="long").exists()

    from annotate.admin.campaigns import CampaignAdminForm

    form = CampaignAdminForm(
        {"name": "A", "slug": "campaign-a", "guidelines": "g" * 11, "description": "",
         "relevant_from": 1, "aggregation": "mean", "overlap": 1, "lease_minutes": 15},
        instance=personas.campaign,
    )  # fmt: skip
    assert not form.is_valid()
    assert "the limit is 10" in form.errors["guidelines"][0]
