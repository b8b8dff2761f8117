"""Invitations (issue 20): single-use links that expire, stored hashed, for one campaign; the
bulk form's CSV of links; revoking; accepting with a new account or the one signed in."""

from __future__ import annotations

import csv
import hashlib
import io
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotate.models import Invitation, Membership, Role
from tests.conftest import PASSWORD

NEW_PASSWORD = "plum-orchard-violin-42"
LINK = re.compile(r"https?://[^/\s\"]+/invite/([A-Za-z0-9_-]+)/")


def _url(personas, name="manage_invitations", campaign=None, **kwargs):
    slug = (campaign or personas.campaign).slug
    return reverse(f"annotate:{name}", kwargs={"slug": slug, **kwargs})


def _invite(client, url, **fields) -> str:
    """Make one invitation from the page; the secret shown in the answer."""
    data = {"name": "", "email": "", "role": "rater", "days": 7} | fields
    response = client.post(url, data)
    assert response.status_code == 200, response.content.decode()
    found = LINK.findall(response.content.decode())
    assert len(found) == 1
    return found[0]


def _accept(secret, username="newbie", password=NEW_PASSWORD, client=None):
    client = client or Client()
    path = reverse("annotate:invitation", kwargs={"secret": secret})
    data = {"username": username, "password1": password, "password2": password}
    return client, client.post(path, data)


def test_a_manager_invites_and_the_invitee_lands_in_the_campaign_as_rater(personas):
    manager = personas.client_for("manager")
    secret = _invite(manager, _url(personas), name="Zhang Wei")
    # Stored hashed: the secret itself is nowhere in the table.
    invitation = Invitation.objects.get()
    assert invitation.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert not Invitation.objects.filter(digest__contains=secret[:20]).exists()
    assert len(secret) >= 40  # 256 bits, url-safe
    page = Client().get(reverse("annotate:invitation", kwargs={"secret": secret}))
    assert page.status_code == 200
    assert 'value="zhang.wei"' in page.content.decode()  # the proposed username
    client, response = _accept(secret, username="zhang.wei")
    assert response.status_code == 302
    assert response["Location"] == reverse("annotate:judge", kwargs={"slug": "campaign-a"})
    user = get_user_model().objects.get(username="zhang.wei")
    assert user.check_password(NEW_PASSWORD)
    assert Membership.objects.get(user=user).role == Role.RATER
    assert Membership.objects.get(user=user).campaign == personas.campaign
    assert client.get(response["Location"]).status_code == 200  # signed in, judging
    listing = manager.get(_url(personas)).content.decode()
    assert "zhang.wei" in listing and "No pending invitations" in listing


def test_a_chinese_name_proposes_a_pinyin_username(personas):
    secret = _invite(personas.client_for("manager"), _url(personas), name="张伟")
    page = Client().get(reverse("annotate:invitation", kwargs={"secret": secret}))
    assert 'value="zhangwei"' in page.content.decode()


def test_a_link_works_once(personas):
    secret = _invite(personas.client_for("manager"), _url(personas), name="a")
    _, first = _accept(secret, username="first")
    assert first.status_code == 302
    _, second = _accept(secret, username="second")
    assert second.status_code == 410
    assert "already been used" in second.content.decode()
    assert not get_user_model().objects.filter(username="second").exists()


def test_an_expired_or_revoked_link_makes_no_account(personas):
    manager = personas.client_for("manager")
    expired = _invite(manager, _url(personas), name="late")
    Invitation.objects.filter(name="late").update(expires_at=timezone.now() - timedelta(seconds=1))
    _, response = _accept(expired, username="late")
    assert response.status_code == 410 and "expired" in response.content.decode()
    revoked = _invite(manager, _url(personas), name="gone")
    pk = Invitation.objects.get(name="gone").pk
    manager.post(_url(personas, "manage_invitation_revoke", invitation_id=pk))
    _, response = _accept(revoked, username="gone")
    assert response.status_code == 410 and "withdrawn" in response.content.decode()
    assert not get_user_model().objects.filter(username__in=["late", "gone"]).exists()


def test_a_made_up_link_is_a_404(db):
    response = Client().get(reverse("annotate:invitation", kwargs={"secret": "x" * 43}))
    assert response.status_code == 404


def test_an_invitation_for_campaign_a_grants_nothing_in_b(personas):
    secret = _invite(personas.client_for("manager"), _url(personas), name="a")
    client, _ = _accept(secret, username="only.a")
    assert client.get(reverse("annotate:judge", kwargs={"slug": "campaign-b"})).status_code == 404
    assert client.get(_url(personas, "manage_raters")).status_code == 404
    user = get_user_model().objects.get(username="only.a")
    assert list(Membership.objects.filter(user=user).values_list("campaign__slug", flat=True)) == [
        "campaign-a"
    ]


def test_a_co_manager_invitation_makes_a_manager_of_that_campaign_only(personas):
    secret = _invite(personas.client_for("manager"), _url(personas), name="co", role="manager")
    client, response = _accept(secret, username="co.manager")
    assert response["Location"] == personas.campaign.get_absolute_url()
    assert client.get(_url(personas, "manage_raters")).status_code == 200
    other = _url(personas, "manage_raters", campaign=personas.other_campaign)
    assert client.get(other).status_code == 404


def test_a_signed_in_person_joins_with_their_account(personas):
    secret = _invite(personas.client_for("manager"), _url(personas), name="o")
    outsider = personas.client_for("outsider")
    path = reverse("annotate:invitation", kwargs={"secret": secret})
    page = outsider.get(path).content.decode()
    assert "Join as outsider" in page and "Log out, then open the link again" in page
    logout = outsider.post(reverse("logout") + f"?next={path}")
    assert logout["Location"] == path  # back to the link, signed out
    outsider = personas.client_for("outsider")
    response = outsider.post(path)
    assert response.status_code == 302
    assert Membership.objects.get(user=personas.outsider).campaign == personas.campaign


def test_a_rater_link_cannot_demote_a_manager(personas):
    secret = _invite(personas.client_for("manager"), _url(personas), name="m")
    response = personas.client_for("manager").post(
        reverse("annotate:invitation", kwargs={"secret": secret})
    )
    assert response.status_code == 400
    assert Membership.objects.get(user=personas.manager, campaign=personas.campaign).role == (
        Role.MANAGER
    )
    assert Invitation.objects.get().accepted_at is None  # still usable by its invitee


@pytest.mark.parametrize(
    ("username", "password", "message"),
    [
        ("rater", NEW_PASSWORD, "is taken"),
        ("RATER", NEW_PASSWORD, "is taken"),
        ("bad name!", NEW_PASSWORD, "Enter a valid username"),
        ("fine", "123", "too short"),
    ],
)
def test_bad_usernames_and_passwords_are_refused_with_a_message(
    personas, username, password, message
):
    secret = _invite(personas.client_for("manager"), _url(personas), name="x")
    _, response = _accept(secret, username=username, password=password)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Invitation.objects.get().accepted_at is None


def test_the_bulk_form_gives_a_csv_with_one_link_per_person(personas):
    manager = personas.client_for("manager")
    upload = io.BytesIO("name,email\n李娜,li.na@example.com\n".encode("gb18030"))
    upload.name = "people.csv"
    data = {"people": "张伟\nwang.fang@example.com\n\n", "role": "rater", "days": 30}
    response = manager.post(_url(personas, "manage_invitations_bulk"), data | {"upload": upload})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    body = b"".join(response.streaming_content).decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert [(r["name"], r["email"]) for r in rows] == [
        ("张伟", ""),
        ("", "wang.fang@example.com"),
        ("李娜", "li.na@example.com"),
    ]
    assert Invitation.objects.filter(campaign=personas.campaign).count() == 3
    secrets = [LINK.match(r["link"]).group(1) for r in rows]
    assert len(set(secrets)) == 3
    _, accepted = _accept(secrets[2], username="li.na")
    assert accepted.status_code == 302


def test_the_bulk_csv_can_start_with_a_byte_order_mark(personas):
    data = {"people": "张伟", "role": "rater", "days": 7, "bom": "on"}
    response = personas.client_for("manager").post(_url(personas, "manage_invitations_bulk"), data)
    assert b"".join(response.streaming_content).startswith(b"\xef\xbb\xbf")


@pytest.mark.parametrize(
    ("people", "message"),
    [
        ("", "Paste the names"),
        ("a,b,c", "line 1"),
        ("ok\nname,not-an-email", "line 2"),
    ],
)
def test_a_bad_list_is_a_400_with_the_line(personas, people, message):
    data = {"people": people, "role": "rater", "days": 7}
    response = personas.client_for("manager").post(_url(personas, "manage_invitations_bulk"), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Invitation.objects.exists()


def test_invitations_can_be_sent_by_email(personas, settings):
    settings.EMAIL_ENABLED = True
    manager = personas.client_for("manager")
    secret = _invite(
        manager, _url(personas), name="Mail", email="mail@example.com", send_email="on"
    )
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["mail@example.com"] and "Campaign A" in message.subject
    assert secret in message.body


def test_an_invitation_mail_speaks_the_campaigns_language_not_the_senders(personas, settings):
    from annotate.models import Campaign

    settings.EMAIL_ENABLED = True
    Campaign.objects.filter(pk=personas.campaign.pk).update(language="zh-hans")
    manager = personas.client_for("manager")  # the manager's own pages stay English
    _invite(manager, _url(personas), name="王芳", email="wf@example.com", send_email="on")
    (message,) = mail.outbox
    assert message.subject == "邀请你加入“Campaign A”"
    assert "打开这个链接，选择用户名和密码即可加入：" in message.body
    assert "该链接只能使用一次，有效期至" in message.body
    assert "Open this link" not in message.body


@pytest.mark.parametrize("persona", ["rater", "other_rater", "other_manager", "outsider"])
def test_only_the_campaigns_managers_see_or_make_invitations(personas, persona):
    client = personas.client_for(persona)
    assert client.get(_url(personas)).status_code == 404
    assert client.post(_url(personas), {"name": "x", "role": "rater", "days": 7}).status_code == 404
    bulk = {"people": "x", "role": "rater", "days": 7}
    assert client.post(_url(personas, "manage_invitations_bulk"), bulk).status_code == 404
    assert not Invitation.objects.exists()


def test_another_manager_cannot_revoke_this_campaigns_invitation(personas):
    _invite(personas.client_for("manager"), _url(personas), name="keep")
    pk = Invitation.objects.get().pk
    other = personas.client_for("other_manager")
    # Through their own campaign's URL: the invitation is not theirs to revoke.
    other.post(_revoke_url(personas, pk))
    assert Invitation.objects.get().revoked_at is None
    assert (
        other.post(_url(personas, "manage_invitation_revoke", invitation_id=pk)).status_code == 404
    )


def _revoke_url(personas, pk):
    campaign = personas.other_campaign
    return _url(personas, "manage_invitation_revoke", campaign=campaign, invitation_id=pk)


def test_anonymous_visitors_are_sent_to_log_in(personas):
    response = Client().get(_url(personas))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_a_login_still_works_for_the_invited_account(personas):
    secret = _invite(personas.client_for("manager"), _url(personas), name="x")
    _accept(secret, username="later")
    assert Client().login(username="later", password=NEW_PASSWORD)
    assert not Client().login(username="later", password=PASSWORD)


def test_without_an_email_server_no_email_is_offered_or_sent(personas, settings):
    settings.EMAIL_ENABLED = False
    manager = personas.client_for("manager")
    page = manager.get(_url(personas)).content.decode()
    assert "by e-mail" not in page and "sends no e-mail" in page
    fields = {"name": "M", "email": "m@example.com", "send_email": "on"}
    _invite(manager, _url(personas), **fields)
    assert mail.outbox == []


def test_an_uploaded_lists_error_names_the_file_and_line(personas):
    upload = io.BytesIO(b"ok\nname,bad-address\n")
    upload.name = "team.csv"
    data = {"people": "", "role": "rater", "days": 7, "upload": upload}
    response = personas.client_for("manager").post(_url(personas, "manage_invitations_bulk"), data)
    assert response.status_code == 400
    assert "team.csv:2" in response.content.decode()


def test_a_username_taken_at_the_last_moment_is_refused(personas, monkeypatch):
    secret = _invite(personas.client_for("manager"), _url(personas), name="x")
    User = get_user_model()
    create_user = User.objects.create_user

    def someone_else_first(**fields):
        User.objects.bulk_create([User(username=fields["username"])])
        return create_user(**fields)

    monkeypatch.setattr(User.objects, "create_user", someone_else_first)
    _, response = _accept(secret, username="racer")
    assert response.status_code == 400 and "is taken" in response.content.decode()
    assert Invitation.objects.get().accepted_at is None


def test_a_carriage_return_inside_an_uploaded_line_is_a_line_end_not_a_500(personas):
    """A lone CR in the middle of a line stopped the csv module ("new-line character seen in
    unquoted field"): the bulk form answered 500. Found by the hostile-input fuzz (issue 15)."""
    upload = io.BytesIO(b"name,email\nZhang\rWei,zw@example.com\n")
    upload.name = "people.csv"
    data = {"role": "rater", "days": 7, "upload": upload}
    response = personas.client_for("manager").post(_url(personas, "manage_invitations_bulk"), data)
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [(r["name"], r["email"]) for r in rows] == [("Zhang", ""), ("Wei", "zw@example.com")]


def test_a_nul_in_an_uploaded_name_is_refused_naming_its_line(personas):
    """PostgreSQL refuses NUL in text: the bulk form answered 500 there. Found by the
    hostile-input fuzz on PostgreSQL (issue 15)."""
    upload = io.BytesIO(b"name,email\nZhang\x00Wei,zw@example.com\n")
    upload.name = "people.csv"
    data = {"role": "rater", "days": 7, "upload": upload}
    response = personas.client_for("manager").post(_url(personas, "manage_invitations_bulk"), data)
    assert response.status_code == 400
    assert "people.csv:2: a name may not hold control characters" in response.content.decode()
    assert not Invitation.objects.exists()
