"""config.auth: Django's ModelBackend with a one-statement user read keeps its rules: the
signed-in user is loaded whole, an inactive or deleted user is signed out, a bad id in the
session is nobody, and signing in with a wrong password still fails."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.urls import reverse

from config.auth import ModelBackend
from tests.conftest import PASSWORD


def test_it_is_the_only_backend():
    assert settings.AUTHENTICATION_BACKENDS == ["config.auth.ModelBackend"]


def test_get_user_loads_the_user_as_the_orm_does(personas):
    user = ModelBackend().get_user(str(personas.rater.pk))
    orm = get_user_model().objects.get(pk=personas.rater.pk)
    names = [field.attname for field in get_user_model()._meta.concrete_fields]
    assert {n: getattr(user, n) for n in names} == {n: getattr(orm, n) for n in names}
    assert user.get_session_auth_hash() == orm.get_session_auth_hash()


def test_an_inactive_deleted_or_malformed_user_is_nobody(personas):
    backend = ModelBackend()
    assert backend.get_user("not a number") is None
    assert backend.get_user(None) is None
    assert backend.get_user(str(10**12)) is None
    personas.rater.is_active = False
    personas.rater.save()
    assert backend.get_user(str(personas.rater.pk)) is None


def test_a_signed_in_rater_stays_signed_in_until_deactivated(personas):
    client = personas.client_for("rater")
    home = reverse("annotate:home")
    assert client.get(home).status_code == 200
    get_user_model().objects.filter(pk=personas.rater.pk).update(is_active=False)
    assert client.get(home).status_code == 302


def test_signing_in_checks_the_password(personas):
    assert authenticate(username="rater", password=PASSWORD) == personas.rater
    assert authenticate(username="rater", password=PASSWORD + "x") is None


def test_a_session_signed_in_through_djangos_backend_stays_signed_in(personas):
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.test import Client

    from config.sessions import SessionStore

    store = SessionStore()
    store[SESSION_KEY] = str(personas.rater.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"  # before config.auth
    store[HASH_SESSION_KEY] = personas.rater.get_session_auth_hash()
    store.create()
    client = Client()
    client.cookies[settings.SESSION_COOKIE_NAME] = store.session_key
    assert client.get(reverse("annotate:home")).status_code == 200
    assert client.get(reverse("annotate:home")).wsgi_request.user == personas.rater
