"""The screenshot script's list of screens (scripts/screenshots.py) cannot rot: every screen
answers 200 to its persona on the demo, and every page of the URL configuration is either on
the list or excused by name."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from scripts.screenshots import NOT_SCREENS, Screen, prepare

# The jobs page reads the jobs database.
pytestmark = pytest.mark.django_db(databases=["default", "jobs"])


@pytest.fixture
def demo_screens(settings) -> list[Screen]:
    settings.DEBUG = True
    call_command("demo", "--lang", "zh", stdout=StringIO(), stderr=StringIO())
    return prepare("zh")


def url_names(resolver: URLResolver, namespace: str = "", route: str = "") -> set[str]:
    """Every named pattern as namespace:name, but the admin's and the API's (not screens)."""
    names = set()
    for pattern in resolver.url_patterns:
        here = route + str(pattern.pattern)
        if here.startswith(("admin/", "api/")):
            continue
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            names |= url_names(pattern, inner, here)
        elif isinstance(pattern, URLPattern) and pattern.name:
            names.add(namespace + pattern.name)
    return names


def test_every_page_is_a_screen_that_answers_200_to_its_persona_in_its_language(demo_screens):
    """One test, as the demo takes seconds to build."""
    users = get_user_model().objects
    clients: dict[str, Client] = {"anonymous": Client()}
    failures = []
    for screen in demo_screens:
        if screen.persona not in clients:
            clients[screen.persona] = Client()
            clients[screen.persona].force_login(users.get(username=screen.persona))
        response = clients[screen.persona].get(screen.url)
        if response.status_code != 200:
            failures.append(f"{screen.persona} {screen.url}: {response.status_code}")
        elif screen.persona != "anonymous" and screen.url_name != "admin:index":
            # Every account was given the Chinese interface.
            assert '<html lang="zh-hans"' in response.content.decode(), screen
    assert failures == []
    files = [f"{screen.persona}-{screen.name}" for screen in demo_screens]
    assert len(files) == len(set(files))
    # Every page is on the list or excused, and nothing listed or excused has gone.
    shown = {screen.url_name for screen in demo_screens}
    pages = url_names(get_resolver())
    assert sorted(pages - shown - set(NOT_SCREENS)) == []
    assert sorted((set(NOT_SCREENS) | shown) - pages - {"admin:index"}) == []
