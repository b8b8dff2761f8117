"""Login, logout, password change, and the navigation each persona sees."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.conftest import PASSWORD


def test_it_redirects_anonymous_visitors_to_login(personas):
    response = personas.client_for("anonymous").get(reverse("annotate:home"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_it_logs_in_with_the_right_password_and_lands_home(personas):
    client = Client()
    response = client.post(reverse("login"), {"username": "rater", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == reverse("annotate:home")
    assert client.get(reverse("annotate:home")).status_code == 200


def test_it_refuses_a_wrong_password_with_a_message(personas):
    client = Client()
    response = client.post(reverse("login"), {"username": "rater", "password": "nope"})
    assert response.status_code == 200
    assert "didn't match" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_logout_is_a_post_and_ends_the_session(personas):
    client = personas.client_for("rater")
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert client.get(reverse("annotate:home")).status_code == 302


def test_password_change_works_and_the_new_password_logs_in(personas):
    client = personas.client_for("rater")
    page = client.get(reverse("password_change"))
    assert page.status_code == 200
    assert b'href="/static/css/app.css"' in page.content  # styled like the app
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "a-new-Passw0rd!",
            "new_password2": "a-new-Passw0rd!",
        },
    )
    assert response.status_code == 302
    assert Client().login(username="rater", password="a-new-Passw0rd!")


@pytest.mark.parametrize(
    ("persona", "queues", "campaigns"),
    [
        ("rater", True, False),
        ("other_rater", True, False),
        ("manager", False, True),
        ("other_manager", False, True),
        ("outsider", False, False),
    ],
)
def test_navigation_shows_what_the_persona_may_use(personas, persona, queues, campaigns):
    html = personas.client_for(persona).get(reverse("annotate:home")).content.decode()
    assert ('data-nav="queues"' in html) is queues
    assert ('data-nav="campaigns"' in html) is campaigns
    assert ('data-nav="reports"' in html) is campaigns
    assert "Log out" in html


def test_home_lists_only_the_users_own_campaigns(personas):
    html = personas.client_for("rater").get(reverse("annotate:home")).content.decode()
    assert "Campaign A" in html
    assert "Campaign B" not in html
    html = personas.client_for("other_manager").get(reverse("annotate:home")).content.decode()
    assert "Campaign B" in html
    assert "Campaign A" not in html


@pytest.mark.parametrize(
    ("persona", "status"),
    [
        ("manager", 200),
        ("other_manager", 404),
        ("rater", 404),
        ("outsider", 404),
        ("anonymous", 302),
    ],
)
def test_campaign_page_is_for_its_managers_only(personas, persona, status):
    url = reverse("annotate:campaign", kwargs={"slug": "campaign-a"})
    response = personas.client_for(persona).get(url)
    assert response.status_code == status
    if status == 200:
        assert b"Campaign A" in response.content


def test_campaign_list_shows_only_managed_campaigns(personas):
    html = personas.client_for("manager").get(reverse("annotate:campaign_list")).content.decode()
    assert "Campaign A" in html and "Campaign B" not in html
    html = personas.client_for("outsider").get(reverse("annotate:campaign_list")).content.decode()
    assert "Campaign A" not in html and "Campaign B" not in html
