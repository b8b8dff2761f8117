"""Which interface language a request gets (issue 20).

Order: the user's own choice (Preferences, set by the picker in the header), then the default
language of a campaign they rate in, then what Django's LocaleMiddleware found before us (the
language cookie, then the browser's Accept-Language, then LANGUAGE_CODE).

The campaign is the one in the URL when the user is a member of it; elsewhere (the home page,
their preferences) it is the newest of their rater memberships whose campaign has a language.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils import translation

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
    user belongs to it), else that of the newest campaign they rate in that has one. One query:
    it runs on every page."""
    from django.contrib.auth import get_user_model
    from django.db.models import OuterRef, Subquery

    from annotate.models import Membership, Preferences, Role

    mine = Membership.objects.filter(user=OuterRef("pk")).exclude(campaign__language="")
    here = mine.filter(campaign__slug=slug or "")
    rated = mine.filter(role=Role.RATER).order_by("-pk")
    row = (
        get_user_model()
        .objects.filter(pk=user.pk)
        .values_list(
            Subquery(Preferences.objects.filter(user=OuterRef("pk")).values("language")[:1]),
            Subquery(here.values("campaign__language")[:1]),
            Subquery(rated.values("campaign__language")[:1]),
        )
        .first()
    )
    if row is None:
        return None
    for code in row:
        language = supported_language(code)
        if language:
            return language
    return None


def user_language(request: HttpRequest) -> str | None:
    """The language the signed-in user's choice or campaign gives, or None (the browser's)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    return stored_language(user, _campaign_slug(request))


class UserLanguageMiddleware:
    """After authentication: puts the user's language before the cookie and Accept-Language
    that LocaleMiddleware (earlier in the list) already applied."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = user_language(request)
        if language and language != getattr(request, "LANGUAGE_CODE", None):
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", translation.get_language())
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
