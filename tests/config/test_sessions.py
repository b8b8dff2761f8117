"""config.sessions: the database session store with a raw read keeps the database store's
rules: a live session loads, an expired or deleted one does not, and logout ends it."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from config.sessions import SessionStore


def test_it_is_the_session_engine():
    assert settings.SESSION_ENGINE == "config.sessions"


def test_a_live_session_loads_and_an_expired_or_deleted_one_does_not(db):
    store = SessionStore()
    store["answer"] = 42
    store.create()
    key = store.session_key
    assert SessionStore(key).load() == {"answer": 42}
    Session.objects.filter(pk=key).update(expire_date=timezone.now() - timedelta(seconds=1))
    expired = SessionStore(key)
    assert expired.load() == {} and expired.session_key is None
    Session.objects.filter(pk=key).delete()
    assert SessionStore(key).load() == {}


def test_logout_ends_the_session_for_every_holder_of_the_cookie(personas):
    client = personas.client_for("rater")
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    thief = Client()
    thief.cookies[settings.SESSION_COOKIE_NAME] = cookie
    assert thief.get(reverse("annotate:home")).status_code == 200
    client.post(reverse("logout"))
    assert thief.get(reverse("annotate:home")).status_code == 302  # to the login page
