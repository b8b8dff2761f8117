"""Signing a persona in for a browser test whose subject is not the login itself.

The login form is what tests/browser/test_login.py (and the Chinese and CSP tests) check; the
other tests only need someone signed in. Typing into the form cost every test three page loads
(the form, its POST and the redirect) and the form's fills. Here the session is made the way
Django's test client makes it (`force_login`: the same `login()`, so the same signals and
session keys) and its cookie handed to the browser, which then opens its first page signed in
as if the person had logged in earlier.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from playwright.sync_api import Page, expect


def log_in(page: Page, base_url: str, username: str, *, home: bool = True) -> None:
    """Sign `username` in in the page's browser context; with `home`, open the home page and
    wait for its greeting (where logging in through the form would have landed)."""
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": base_url}]
    )
    if home:
        # The first request loads the URL configuration: slow on a busy machine.
        page.goto(f"{base_url}/", timeout=120_000)
        expect(page.get_by_role("heading", name=f"Hello, {username}")).to_be_visible()
