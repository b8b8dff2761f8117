"""API tokens: made on the user's page and shown once, stored hashed, expiring, revocable."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient


def _create(client, days: int = 30) -> str:
    response = client.post("/tokens/", {"days": days})
    assert response.status_code == 201
    (token,) = re.findall(
        r'id="new-token" type="text" readonly value="([0-9a-f]{64})"', response.content.decode()
    )
    assert response["Cache-Control"].startswith("max-age=0")  # never_cache: not kept by a proxy
    return token


def _script(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_a_token_is_shown_once_and_stored_only_as_a_hash(personas):
    client = personas.client_for("rater")
    token = _create(client)
    stored = AuthToken.objects.get(user=personas.rater)
    assert token not in {stored.digest, stored.token_key}
    assert stored.token_key == token[:15]
    page = client.get("/tokens/").content.decode()
    assert token not in page
    assert f"{token[:15]}…" in page
    assert _script(token).get("/api/v1/me/").json()["username"] == "rater"


def test_the_token_lives_as_long_as_chosen(personas):
    client = personas.client_for("manager")
    _create(client, days=7)
    stored = AuthToken.objects.get(user=personas.manager)
    assert abs(stored.expiry - (timezone.now() + timedelta(days=7))) < timedelta(minutes=1)


def test_an_expired_token_gets_401(personas):
    token = _create(personas.client_for("rater"))
    AuthToken.objects.update(expiry=timezone.now() - timedelta(seconds=1))
    response = _script(token).get("/api/v1/me/")
    assert response.status_code == 401
    assert AuthToken.objects.count() == 0  # knox drops it on the way


def test_a_revoked_token_gets_401_and_others_keep_working(personas):
    client = personas.client_for("rater")
    first, second = _create(client), _create(client)
    response = client.post(f"/tokens/{first[:15]}/revoke/")
    assert response.status_code == 302
    assert _script(first).get("/api/v1/me/").status_code == 401
    assert _script(second).get("/api/v1/me/").status_code == 200


def test_nobody_revokes_another_users_token(personas):
    token = _create(personas.client_for("rater"))
    personas.client_for("outsider").post(f"/tokens/{token[:15]}/revoke/")
    assert _script(token).get("/api/v1/me/").status_code == 200


@pytest.mark.parametrize("days", ["0", "abc", "100000"])
def test_it_rejects_a_lifetime_not_offered(personas, days):
    response = personas.client_for("rater").post("/tokens/", {"days": days})
    assert response.status_code == 400
    assert AuthToken.objects.count() == 0


def test_the_token_page_needs_a_login(personas):
    response = personas.client_for("anonymous").get("/tokens/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_the_user_menu_links_to_the_token_page(personas):
    page = personas.client_for("rater").get("/").content.decode()
    assert 'href="/tokens/"' in page


def test_a_token_can_grade_but_sees_only_what_its_user_may(personas, data):
    token = _create(personas.client_for("other_rater"))
    client = _script(token)
    assert client.get("/api/v1/campaigns/campaign-a/queue/").status_code == 404
    assert [g["campaign"] for g in client.get("/api/v1/grades/").json()["results"]] == [
        "campaign-b"
    ]
