"""Which interface language a request gets (issue 20).

Order: the user's own choice (Preferences, set by the picker in the header), then the default
language of a campaign they rate in, then the browser's Accept-Language, then LANGUAGE_CODE.

Pages look the first two up (one query) and keep the answer in the language cookie; the
requests the judging scripts and API clients send (JSON) read only that cookie, through
Django's LocaleMiddleware, so the judging round trips take no query for it.

The campaign is the one in the URL when the user rates in it; elsewhere (the home page, their
preferences) it is the newest of their rater memberships whose campaign has a language. A
campaign's language is for its raters only: its managers get their own choice or their
browser's, on its pages too (a manager may run campaigns in several languages).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header

LANGUAGE_COOKIE_MAX_AGE = 365 * 24 * 3600


def supported_language(code: str | None) -> str | None:
    """The code as settings.LANGUAGES spells it, or None when it is not one of them."""
    if not code:
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def _campaign_slug(request: HttpRequest) -> str | None:
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return None
    slug = match.kwargs.get("slug")
    return slug if isinstance(slug, str) else None


def stored_language(user: AbstractBaseUser, slug: str | None) -> str | None:
    """The user's own choice, else the default language of the campaign in the URL (when the
    user rates in it), else that of the newest campaign they rate in that has one. One query:
    it runs on every page."""
    for code in _stored_languages(user.pk, slug or ""):
        language = supported_language(code)
        if language:
            return language
    return None


def _stored_languages(user_id: int, slug: str) -> tuple[str | None, str | None, str | None]:
    """The three candidates of ``stored_language`` in one statement. Written in SQL because it
    runs on every page: the same query built by the ORM (three correlated subqueries) took
    4.7 ms to compile against 0.02 ms to run."""
    from annotate.models import Campaign, Membership, Preferences, Role

    prefs = Preferences._meta.db_table
    rated = (
        f"SELECT c.language FROM {Membership._meta.db_table} m "
        f"JOIN {Campaign._meta.db_table} c ON c.id = m.campaign_id "
        "WHERE m.user_id = %s AND m.role = %s AND c.language <> ''"
    )
    newest = "ORDER BY m.id DESC LIMIT 1"
    sql = (
        f"SELECT (SELECT p.language FROM {prefs} p WHERE p.user_id = %s), "
        f"({rated} AND c.slug = %s {newest}), ({rated} {newest})"
    )
    params = [user_id, user_id, Role.RATER, slug, user_id, Role.RATER]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _wants_json(request: HttpRequest) -> bool:
    accept = request.headers.get("Accept", "")
    return (
        request.path_info.startswith("/api/")
        or accept.startswith("application/json")
        or request.content_type == "application/json"
    )


def browser_language(request: HttpRequest) -> str:
    """The first language of Accept-Language this site has (the cookie left out), else the
    default."""
    header = request.headers.get("Accept-Language", "")
    for code, _quality in parse_accept_lang_header(header):
        if code != "*":
            found = supported_language(code)
            if found:
                return found
    return settings.LANGUAGE_CODE


class UserLanguageMiddleware:
    """After authentication, on pages: puts the user's language before the browser's, and
    keeps it in the language cookie for the scripts' requests."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or _wants_json(request):
            return self.get_response(request)
        cookie = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        language = stored_language(user, _campaign_slug(request))
        # A cookie no choice stands behind any more (a campaign's language cleared) must not
        # outrank the browser's language.
        effective = language or browser_language(request)
        if effective != getattr(request, "LANGUAGE_CODE", None):
            translation.activate(effective)
            request.LANGUAGE_CODE = translation.get_language()
        response = self.get_response(request)
        if language and cookie != language:
            set_language_cookie(response, language)
        elif not language and cookie:
            set_language_cookie(response, None)
        return response


def set_language_cookie(response: HttpResponse, language: str | None) -> None:
    """Remember the choice in the browser too, so the sign-in page after a logout speaks it;
    None forgets it."""
    if language:
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=LANGUAGE_COOKIE_MAX_AGE,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,
        )
    else:
        response.delete_cookie(settings.LANGUAGE_COOKIE_NAME, samesite="Lax")
