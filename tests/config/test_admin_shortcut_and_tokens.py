"""Two smaller holes: the admin's "view on site" shortcut naming another campaign's slug, and
API tokens that outlived a password change."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from annotate.models import Campaign
from tests.conftest import PASSWORD


def _shortcut(campaign: Campaign) -> str:
    ct = ContentType.objects.get_for_model(Campaign)
    return f"/admin/r/{ct.pk}/{campaign.pk}/"


@pytest.fixture
def staff_manager(personas) -> Client:
    personas.manager.is_staff = True
    personas.manager.save()
    return personas.client_for("manager")


def test_the_shortcut_does_not_name_another_campaigns_slug(personas, staff_manager):
    response = staff_manager.get(_shortcut(personas.other_campaign))
    assert response.status_code == 404
    assert "campaign-b" not in response.headers.get("Location", "")
    assert b"campaign-b" not in response.content


def test_the_shortcut_answers_the_same_for_a_missing_row(personas, staff_manager):
    ct = ContentType.objects.get_for_model(Campaign)
    assert staff_manager.get(f"/admin/r/{ct.pk}/999999/").status_code == 404


def test_the_shortcut_still_serves_a_managed_campaign_and_a_superuser(personas, staff_manager):
    own = staff_manager.get(_shortcut(personas.campaign))
    assert own.status_code == 302 and own["Location"].endswith("/campaigns/campaign-a/")
    root = get_user_model().objects.create_superuser("root", password="root-pass-3e7a")
    client = Client()
    client.force_login(root)
    other = client.get(_shortcut(personas.other_campaign))
    assert other.status_code == 302 and other["Location"].endswith("/campaigns/campaign-b/")


def test_the_shortcut_is_for_staff_only(personas):
    response = personas.client_for("manager").get(_shortcut(personas.campaign))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def _token_works(token: str) -> bool:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client.get("/api/v1/campaigns/").status_code == 200


def test_changing_the_password_on_its_page_revokes_the_api_tokens(personas):
    _, token = AuthToken.objects.create(personas.rater)
    _, other_users = AuthToken.objects.create(personas.manager)
    assert _token_works(token)
    client = personas.client_for("rater")
    response = client.post(
        "/password/change/",
        {
            "old_password": PASSWORD,
            "new_password1": "a-new-Passw0rd!",
            "new_password2": "a-new-Passw0rd!",
        },
    )
    assert response.status_code == 302
    assert not _token_works(token)
    assert not AuthToken.objects.filter(user=personas.rater).exists()
    assert _token_works(other_users)


def test_set_password_anywhere_revokes_the_tokens_and_a_login_does_not(personas):
    _, token = AuthToken.objects.create(personas.rater)
    Client().post("/login/", {"username": "rater", "password": PASSWORD})  # saves last_login
    personas.rater.refresh_from_db()
    personas.rater.first_name = "Ann"
    personas.rater.save()
    assert _token_works(token)
    personas.rater.set_password("another-Passw0rd!")
    personas.rater.save()
    assert not _token_works(token)


def test_the_changepassword_command_revokes_the_tokens(personas, monkeypatch):
    _, token = AuthToken.objects.create(personas.rater)
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "third-Passw0rd!")
    call_command("changepassword", "rater")
    assert not _token_works(token)
