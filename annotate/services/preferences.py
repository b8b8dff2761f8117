"""A user's own preferences (CSV files for Excel, the interface language), and reading them
for a request."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest

from annotate.models import Preferences

_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


def preferences_of(user: AbstractBaseUser) -> Preferences:
    """The user's preferences; the defaults (unsaved) for a user who never chose."""
    if not user.is_authenticated:
        return Preferences()
    return Preferences.objects.filter(user=user).first() or Preferences(user=user)


def preferences_save(
    *, user: AbstractBaseUser, csv_bom: bool, language: str | None = None
) -> Preferences:
    """Save the user's preferences; a language of None leaves the stored one as it is."""
    values: dict[str, object] = {"csv_bom": csv_bom}
    if language is not None:
        values["language"] = language
    preferences, _ = Preferences.objects.update_or_create(user=user, defaults=values)
    return preferences


def language_save(*, user: AbstractBaseUser, language: str) -> Preferences:
    """The picker in the header: "" goes back to the campaign's or the browser's language."""
    preferences, _ = Preferences.objects.update_or_create(
        user=user, defaults={"language": language}
    )
    return preferences


def csv_bom_wanted(request: HttpRequest) -> bool:
    """Whether a CSV download starts with a UTF-8 byte-order mark: `?bom=1` or `?bom=0` on the
    download decides; otherwise the user's preference. Anything else in `bom` is read as the
    preference too (a download link never fails over it)."""
    asked = request.GET.get("bom", "").lower()
    if asked in _TRUE:
        return True
    if asked in _FALSE:
        return False
    return preferences_of(request.user).csv_bom
