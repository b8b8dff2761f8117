"""API tokens: made on the user's page and shown once, stored hashed, expiring, revocable."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient


def _create(client, days: int = 30, name: str | None = None) -> str:
    name = name or f"script {AuthToken.objects.count() + 1}"
    response = client.post("/tokens/", {"name": name, "days": days})
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
    response = personas.client_for("rater").post("/tokens/", {"name": "CI", "days": days})
    assert response.status_code == 400
    assert AuthToken.objects.count() == 0


def test_the_token_page_needs_a_login(personas):
    response = personas.client_for("anonymous").get("/tokens/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_the_user_menu_links_to_the_token_page(personas):
    # Managers' menus link it; a rater's does not (#21: raters had no use for the link), and
    # a rater who scripts their judging still opens the page by its address.
    assert 'href="/tokens/"' in personas.client_for("manager").get("/").content.decode()
    assert 'href="/tokens/"' not in personas.client_for("rater").get("/").content.decode()
    assert personas.client_for("rater").get("/tokens/").status_code == 200


def test_a_token_can_grade_but_sees_only_what_its_user_may(personas, data):
    token = _create(personas.client_for("other_rater"))
    client = _script(token)
    assert client.get("/api/v1/campaigns/campaign-a/queue/").status_code == 404
    assert [g["campaign"] for g in client.get("/api/v1/grades/").json()["results"]] == [
        "campaign-b"
    ]


def _page(client) -> str:
    return client.get("/tokens/").content.decode()


def _rows(page: str) -> list[str]:
    """The tokens table's rows, as the text of their cells."""
    rows = re.findall(r'<tr data-token="[^"]+">(.*?)</tr>', page, flags=re.S)
    return [
        " | ".join(
            re.sub(r"<[^>]+>", "", c).strip()
            for c in re.findall(r"<td>(.*?)</td>", row, flags=re.S)
        )
        for row in rows
    ]


def test_each_token_is_listed_with_its_name_creation_and_expiry(personas):
    client = personas.client_for("rater")
    ci = _create(client, days=7, name="CI")
    notebook = _create(client, days=30, name="notebook")
    earlier = timezone.now() - timedelta(days=2)
    AuthToken.objects.filter(token_key=ci[:15]).update(created=earlier)
    expected = []
    for text, name in ((notebook, "notebook"), (ci, "CI")):  # newest first
        token = AuthToken.objects.get(token_key=text[:15])
        when = f"{token.created:%Y-%m-%d %H:%M} | {token.expiry:%Y-%m-%d %H:%M}"
        expected.append(f"{name} | {text[:15]}… | {when} | Revoke")
    assert _rows(_page(client)) == expected


def test_the_new_token_is_shown_once_under_its_name(personas):
    client = personas.client_for("rater")
    response = client.post("/tokens/", {"name": "nightly eval", "days": 30})
    assert "Your new token “nightly eval”" in response.content.decode()
    assert "Your new token" not in _page(client)


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("", "Give the token a name"),
        ("   ", "Give the token a name"),
        ("x" * 41, "at most 40 characters (it has 41)"),
    ],
)
def test_it_refuses_a_blank_or_too_long_name(personas, name, error):
    response = personas.client_for("rater").post("/tokens/", {"name": name, "days": 30})
    assert response.status_code == 400
    assert error in response.content.decode()
    assert AuthToken.objects.count() == 0


def test_a_name_of_exactly_the_limit_is_taken(personas):
    _create(personas.client_for("rater"), name="x" * 40)
    assert AuthToken.objects.get().naming.name == "x" * 40


def test_it_refuses_a_name_the_user_already_has_whatever_the_case(personas):
    client = personas.client_for("rater")
    _create(client, name="CI")
    for name in ("CI", "ci", "  CI  "):
        response = client.post("/tokens/", {"name": name, "days": 30})
        assert response.status_code == 400
        assert "you already have a token named" in response.content.decode()
    assert AuthToken.objects.count() == 1


def test_another_user_may_use_the_same_name(personas):
    _create(personas.client_for("rater"), name="CI")
    _create(personas.client_for("manager"), name="CI")
    assert AuthToken.objects.filter(naming__name="CI").count() == 2


def test_a_revoked_or_expired_tokens_name_is_free_again(personas):
    client = personas.client_for("rater")
    first = _create(client, name="CI")
    client.post(f"/tokens/{first[:15]}/revoke/")
    second = _create(client, name="CI")
    AuthToken.objects.update(expiry=timezone.now() - timedelta(seconds=1))
    _create(client, name="CI")
    assert AuthToken.objects.filter(token_key=second[:15]).count() == 0
    assert list(AuthToken.objects.values_list("naming__name", flat=True)) == ["CI"]


def test_revoking_deletes_the_token_and_its_name(personas):
    from annotate.models import TokenName

    client = personas.client_for("rater")
    token = _create(client, name="CI")
    response = client.post(f"/tokens/{token[:15]}/revoke/", follow=True)
    assert "revoked" in response.content.decode()
    assert (AuthToken.objects.count(), TokenName.objects.count()) == (0, 0)


def test_the_outsider_neither_sees_nor_revokes_another_users_tokens(personas):
    token = _create(personas.client_for("rater"), name="rater's CI")
    outsider = personas.client_for("outsider")
    page = _page(outsider)
    assert "rater&#x27;s CI" not in page and token[:15] not in page
    assert "No tokens yet." in page
    response = outsider.post(f"/tokens/{token[:15]}/revoke/", follow=True)
    assert "No such token" in response.content.decode()
    assert AuthToken.objects.filter(token_key=token[:15]).exists()
    assert "rater&#x27;s CI" in _page(personas.client_for("rater"))


def test_a_token_made_before_names_is_listed_without_one(personas):
    AuthToken.objects.create(user=personas.rater)
    (row,) = _rows(_page(personas.client_for("rater")))
    assert row.startswith("no name |")


def test_creating_a_token_needs_the_csrf_token(personas):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(personas.rater)
    response = client.post("/tokens/", {"name": "CI", "days": 30})
    assert response.status_code == 403
    assert AuthToken.objects.count() == 0


def test_the_name_cannot_be_blank_or_repeated_in_the_database(personas):
    from django.db import IntegrityError, transaction

    from annotate.models import TokenName

    first, _ = AuthToken.objects.create(user=personas.rater)
    second, _ = AuthToken.objects.create(user=personas.rater)
    TokenName.objects.create(token=first, user=personas.rater, name="CI")
    for name in ("ci", ""):
        with pytest.raises(IntegrityError), transaction.atomic():
            TokenName.objects.create(token=second, user=personas.rater, name=name)
