"""Login throttling (django-axes): wrong passwords lock the account and the address on
/login/ and /admin/login/ with a clear page; a manager unlocks raters of their own campaigns
only, a superuser anyone."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from config.auth import client_address
from tests.conftest import PASSWORD, PERSONA_NAMES

LIMIT = settings.AXES_FAILURE_LIMIT


def _fail(client: Client, url: str, username: str, times: int, **extra) -> list[int]:
    return [
        client.post(url, {"username": username, "password": "wrong"}, **extra).status_code
        for _ in range(times)
    ]


@pytest.mark.parametrize("url", ["/login/", "/admin/login/"])
def test_wrong_passwords_lock_the_account_with_a_clear_page(personas, url):
    client = Client()
    codes = _fail(client, url, "rater", LIMIT + 1)
    assert codes[: LIMIT - 1] == [200] * (LIMIT - 1)
    assert codes[-1] == 429
    response = client.post(url, {"username": "rater", "password": PASSWORD})
    assert response.status_code == 429
    text = response.content.decode()
    assert "Too many failed sign-ins" in text and "15 minutes" in text
    # The right password does not get in while locked.
    assert "_auth_user_id" not in client.session


def test_the_account_is_locked_from_another_address_too(personas):
    _fail(Client(REMOTE_ADDR="10.0.0.1"), "/login/", "rater", LIMIT)
    other = Client(REMOTE_ADDR="10.0.0.2")
    response = other.post("/login/", {"username": "rater", "password": PASSWORD})
    assert response.status_code == 429


def test_the_address_is_locked_for_other_accounts_too(personas):
    client = Client(REMOTE_ADDR="10.0.0.9")
    for i in range(LIMIT):
        client.post("/login/", {"username": f"nobody{i}", "password": "wrong"})
    response = client.post("/login/", {"username": "manager", "password": PASSWORD})
    assert response.status_code == 429


def test_a_good_sign_in_before_the_limit_resets_the_count(personas):
    client = Client()
    _fail(client, "/login/", "rater", LIMIT - 1)
    assert client.post("/login/", {"username": "rater", "password": PASSWORD}).status_code == 302
    client.post(reverse("logout"))
    assert _fail(client, "/login/", "rater", LIMIT - 1) == [200] * (LIMIT - 1)


def _lock(username: str) -> None:
    _fail(Client(), "/login/", username, LIMIT)
    assert AccessAttempt.objects.filter(username=username).exists()


def _unlock_url(personas, user) -> str:
    return reverse(
        "annotate:manage_rater_unlock", kwargs={"slug": "campaign-a", "user_id": user.pk}
    )


def test_the_raters_page_offers_an_unlock_for_a_locked_rater(personas):
    client = personas.client_for("manager")
    page = reverse("annotate:manage_raters", kwargs={"slug": "campaign-a"})
    assert 'data-testid="unlock"' not in client.get(page).content.decode()
    _lock("rater")
    assert 'aria-label="Unlock rater"' in client.get(page).content.decode()


def test_a_manager_unlocks_a_rater_of_their_campaign(personas):
    _lock("rater")
    response = personas.client_for("manager").post(_unlock_url(personas, personas.rater))
    assert response.status_code == 302
    assert not AccessAttempt.objects.filter(username="rater").exists()
    assert Client().post("/login/", {"username": "rater", "password": PASSWORD}).status_code == 302


@pytest.mark.parametrize("persona", [p for p in PERSONA_NAMES if p != "manager"])
def test_nobody_else_unlocks_a_rater_of_campaign_a(personas, persona):
    client = personas.client_for(persona)  # signing in as the rater would itself reset the count
    _lock("rater")
    response = client.post(_unlock_url(personas, personas.rater))
    assert response.status_code in (302, 404)
    if persona == "anonymous":
        assert "/login/" in response["Location"]
    else:
        assert response.status_code == 404
    assert AccessAttempt.objects.filter(username="rater").exists()


def test_a_manager_cannot_unlock_someone_outside_their_campaign(personas):
    _lock("other_rater")
    _lock("other_manager")
    client = personas.client_for("manager")
    for user in (personas.other_rater, personas.other_manager):
        response = client.post(_unlock_url(personas, user))
        assert response.status_code == 400
        assert AccessAttempt.objects.filter(username=user.username).exists()
    page = client.get(reverse("annotate:manage_raters", kwargs={"slug": "campaign-a"}))
    assert "other_rater" not in page.content.decode()


def test_a_superuser_unlocks_anyone_in_the_admin(personas):
    _lock("other_rater")
    admin = get_user_model().objects.create_superuser("root", password="root-pass-8d1f")
    client = Client()
    client.force_login(admin)
    attempt = AccessAttempt.objects.get(username="other_rater")
    url = reverse("admin:axes_accessattempt_delete", args=[attempt.pk])
    assert client.post(url, {"post": "yes"}).status_code == 302
    assert not AccessAttempt.objects.filter(username="other_rater").exists()


# Behind reverse proxies (API_TRUSTED_PROXIES): the visitor is the address that many hops from
# the end of X-Forwarded-For; the hops before it are the visitor's own writing.


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "203.0.113.7", "10.0.0.1"),  # no proxy trusted: the header is anyone's to write
        (1, "203.0.113.7", "203.0.113.7"),
        (1, "6.6.6.6, 203.0.113.7", "203.0.113.7"),  # the visitor wrote 6.6.6.6 themselves
        (2, "6.6.6.6, 203.0.113.7, 10.0.0.2", "203.0.113.7"),
        (2, "203.0.113.7", "203.0.113.7"),  # fewer hops than proxies: the first one
        (1, None, "10.0.0.1"),  # no header: the connection's address
    ],
)
def test_client_address_counts_the_trusted_proxies_from_the_end(
    settings, rf, proxies, forwarded, expected
):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": proxies}
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    request = rf.post("/login/", REMOTE_ADDR="10.0.0.1", **extra)
    assert client_address(request) == expected


def test_behind_a_trusted_proxy_one_visitors_failures_lock_only_their_address(personas, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = {"REMOTE_ADDR": "10.0.0.1"}
    attacker = Client(HTTP_X_FORWARDED_FOR="203.0.113.66", **proxy)
    for i in range(LIMIT):
        attacker.post("/login/", {"username": f"nobody{i}", "password": "wrong"})
    locked = attacker.post("/login/", {"username": "manager", "password": PASSWORD})
    assert locked.status_code == 429
    visitor = Client(HTTP_X_FORWARDED_FOR="198.51.100.5", **proxy)
    response = visitor.post("/login/", {"username": "manager", "password": PASSWORD})
    assert response.status_code == 302
