"""Accounts from the manager's pages (issue 20): one-time password-reset links, deactivation,
and who may do either. A reset ends the account's sessions and API tokens; a deactivation
ends its sessions, tokens and leases, and its grades stay."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from knox.models import AuthToken

from annotate.judging.graded import grade_submit, queue_items
from annotate.models import Grade, Lease, Membership, PasswordResetLink, Role
from annotate.services.campaigns import membership_set
from annotate.tokens import token_create
from tests.annotate.queue_helpers import build_pool, make_raters
from tests.conftest import PASSWORD

NEW_PASSWORD = "plum-orchard-violin-42"
RESET = re.compile(r"https?://[^/\s\"]+/reset/([A-Za-z0-9_-]+)/")


def _url(personas, name, user, campaign=None) -> str:
    slug = (campaign or personas.campaign).slug
    return reverse(f"annotate:{name}", kwargs={"slug": slug, "user_id": user.pk})


def _signed_in(user) -> Client:
    """A real sign-in (a session row), as the rater's browser would hold."""
    client = Client()
    assert client.login(username=user.get_username(), password=PASSWORD)
    return client


def _reset_secret(client, url) -> str:
    response = client.post(url)
    assert response.status_code == 200, response.content.decode()
    [secret] = RESET.findall(response.content.decode())
    return secret


def _use(secret, password=NEW_PASSWORD):
    path = reverse("annotate:password_reset_link", kwargs={"secret": secret})
    return Client().post(path, {"password1": password, "password2": password})


def test_a_reset_link_sets_a_new_password_and_ends_sessions_and_tokens(personas):
    rater = personas.rater
    browser = _signed_in(rater)
    token_create(user=rater, name="CI", days=30)
    secret = _reset_secret(
        personas.client_for("manager"), _url(personas, "manage_rater_reset", rater)
    )
    assert PasswordResetLink.objects.get().digest != secret  # hashed
    assert browser.get(reverse("annotate:home")).status_code == 200  # nothing ended yet
    response = _use(secret)
    assert response.status_code == 302 and response["Location"] == reverse("login")
    rater.refresh_from_db()
    assert rater.check_password(NEW_PASSWORD)
    assert not AuthToken.objects.filter(user=rater).exists()
    assert browser.get(reverse("annotate:home")).status_code == 302  # signed out
    assert not _session_users() & {str(rater.pk)}
    assert _use(secret).status_code == 404  # once


def _session_users() -> set[str]:
    return {s.get_decoded().get("_auth_user_id") for s in Session.objects.all()}


def test_a_new_reset_link_replaces_the_old_one_and_links_expire(personas):
    manager, url = (
        personas.client_for("manager"),
        _url(personas, "manage_rater_reset", personas.rater),
    )
    first = _reset_secret(manager, url)
    second = _reset_secret(manager, url)
    assert _use(first).status_code == 404
    PasswordResetLink.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert _use(second).status_code == 404
    personas.rater.refresh_from_db()
    assert personas.rater.check_password(PASSWORD)


def test_a_weak_password_is_refused_and_the_link_stays_usable(personas):
    secret = _reset_secret(
        personas.client_for("manager"), _url(personas, "manage_rater_reset", personas.rater)
    )
    response = _use(secret, password="123")
    assert response.status_code == 400 and "too short" in response.content.decode()
    assert _use(secret).status_code == 302


def test_the_reset_link_can_be_mailed(personas, settings):
    settings.EMAIL_ENABLED = True
    personas.rater.email = "rater@example.com"
    personas.rater.save()
    url = _url(personas, "manage_rater_reset", personas.rater)
    response = personas.client_for("manager").post(url, {"send_email": "1"})
    [secret] = RESET.findall(response.content.decode())
    assert [m.to for m in mail.outbox] == [["rater@example.com"]]
    assert secret in mail.outbox[0].body


def test_a_reset_mail_speaks_the_readers_choice_then_the_campaigns_language(personas, settings):
    from annotate.models import Campaign, Preferences

    settings.EMAIL_ENABLED = True
    personas.rater.email = "rater@example.com"
    personas.rater.save()
    Campaign.objects.filter(pk=personas.campaign.pk).update(language="zh-hans")
    url = _url(personas, "manage_rater_reset", personas.rater)
    manager = personas.client_for("manager")
    manager.post(url, {"send_email": "1"}, HTTP_ACCEPT_LANGUAGE="en")
    chinese = mail.outbox[-1]
    assert chinese.subject == "设置新密码"
    assert "生成了一个设置新密码的链接" in chinese.body and "new password" not in chinese.body
    Preferences.objects.create(user=personas.rater, language="en")  # the rater chose English
    manager.post(url, {"send_email": "1"}, HTTP_ACCEPT_LANGUAGE="zh-CN")
    english = mail.outbox[-1]
    assert english.subject == "Set a new password" and "生成" not in english.body


@pytest.mark.parametrize("persona", ["rater", "other_rater", "other_manager", "outsider"])
@pytest.mark.parametrize("action", ["manage_rater_reset", "manage_rater_deactivate"])
def test_only_the_campaigns_managers_reach_its_raters_accounts(personas, persona, action):
    response = personas.client_for(persona).post(_url(personas, action, personas.rater))
    assert response.status_code == 404
    personas.rater.refresh_from_db()
    assert personas.rater.is_active and not PasswordResetLink.objects.exists()


@pytest.mark.parametrize("action", ["manage_rater_reset", "manage_rater_deactivate"])
def test_a_manager_cannot_reach_a_rater_of_another_campaign_through_their_own(personas, action):
    url = _url(personas, action, personas.rater, campaign=personas.other_campaign)
    assert personas.client_for("other_manager").post(url).status_code == 404


@pytest.mark.parametrize("who", ["other_rater", "other_manager", "staff"])
@pytest.mark.parametrize("action", ["manage_rater_reset", "manage_rater_deactivate"])
def test_an_account_that_works_elsewhere_is_left_to_an_administrator(personas, who, action):
    """Adding a colleague as a rater must not let a manager take over their account."""
    if who == "staff":
        user = get_user_model().objects.create_user(username="staff", is_staff=True)
    else:
        user = getattr(personas, who)
    membership_set(campaign=personas.campaign, user=user, role=Role.RATER)
    response = personas.client_for("manager").post(_url(personas, action, user))
    assert response.status_code == 403
    assert "only an administrator" in response.content.decode()
    user.refresh_from_db()
    assert user.is_active and not PasswordResetLink.objects.exists()
    page = personas.client_for("manager").get(
        reverse("annotate:manage_raters", args=["campaign-a"])
    )
    assert f"New password link for {user.get_username()}" not in page.content.decode()
    assert "New password link for rater" in page.content.decode()


def test_deactivating_ends_sessions_tokens_and_leases_and_keeps_grades(personas):
    campaign, rater = personas.campaign, personas.rater
    build_pool(campaign, queries=2, docs_per_query=3)
    items = queue_items(rater=rater, campaign=campaign)
    label = campaign.labels.get(name="Good")
    grade_submit(rater=rater, campaign=campaign, item_id=items[0].pk, label_id=label.pk)
    assert Lease.objects.filter(rater=rater).count() == 2
    browser = _signed_in(rater)
    token_create(user=rater, name="CI", days=30)
    response = personas.client_for("manager").post(
        _url(personas, "manage_rater_deactivate", rater), follow=True
    )
    assert "deactivated" in response.content.decode()
    rater.refresh_from_db()
    assert not rater.is_active
    assert browser.get(reverse("annotate:home")).status_code == 302
    assert not Client().login(username="rater", password=PASSWORD)
    assert not AuthToken.objects.filter(user=rater).exists()
    assert not Lease.objects.filter(rater=rater).exists()
    assert Grade.objects.filter(rater=rater).count() == 1
    [other] = make_raters(campaign, 1)  # the released items are open again
    assert items[1].pk in {item.pk for item in queue_items(rater=other, campaign=campaign)}


def test_a_deactivation_saved_anywhere_revokes_access_too(personas):
    """The admin's user form saves the whole user, as here: the signal sees is_active go."""
    browser = _signed_in(personas.rater)
    token_create(user=personas.rater, name="CI", days=30)
    rater = personas.rater
    rater.is_active = False
    rater.save()
    assert browser.get(reverse("annotate:home")).status_code == 302
    assert not AuthToken.objects.filter(user=rater).exists()


def test_a_superuser_may_reset_a_manager_through_any_campaign(personas):
    admin = get_user_model().objects.create_superuser("root", password=PASSWORD)
    client = Client()
    client.force_login(admin)
    membership_set(campaign=personas.campaign, user=personas.other_manager, role=Role.RATER)
    url = _url(personas, "manage_rater_reset", personas.other_manager)
    assert _use(_reset_secret(client, url)).status_code == 302
    assert Membership.objects.filter(user=personas.other_manager).count() == 2


def test_a_deactivated_account_gets_no_reset_link(personas):
    manager = personas.client_for("manager")
    manager.post(_url(personas, "manage_rater_deactivate", personas.rater))
    response = manager.post(_url(personas, "manage_rater_reset", personas.rater))
    assert response.status_code == 403


def test_a_reset_link_also_lifts_a_sign_in_lockout(personas, settings):
    settings.AXES_FAILURE_LIMIT = 2
    for _ in range(2):
        Client().post(reverse("login"), {"username": "rater", "password": "wrong"})
    locked = Client().post(reverse("login"), {"username": "rater", "password": PASSWORD})
    assert locked.status_code == 429
    url = _url(personas, "manage_rater_reset", personas.rater)
    assert _use(_reset_secret(personas.client_for("manager"), url)).status_code == 302
    response = Client().post(reverse("login"), {"username": "rater", "password": NEW_PASSWORD})
    assert response.status_code == 302


def test_deactivating_asks_first(personas):
    url = _url(personas, "manage_rater_deactivate", personas.rater)
    page = personas.client_for("manager").get(url)
    assert page.status_code == 200 and "Deactivate the account of rater?" in page.content.decode()
    personas.rater.refresh_from_db()
    assert personas.rater.is_active  # nothing happens until the button is pressed
    assert personas.client_for("other_manager").get(url).status_code == 404
    membership_set(campaign=personas.campaign, user=personas.other_rater, role=Role.RATER)
    other = _url(personas, "manage_rater_deactivate", personas.other_rater)
    assert personas.client_for("manager").get(other).status_code == 403
