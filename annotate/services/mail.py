"""E-mails with one-time links (invitations, password resets), through Django's e-mail backend:
SMTP when EMAIL_HOST is set, the console in development, an in-memory outbox in tests. Without
any, the pages hand the links out to copy, and nothing here is called.

A mail speaks its reader's language, not the sender's page's: the reader's own choice when they
have an account (a reset), else the campaign's language (its raters', set by its manager), and
the sender's only when neither is set."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

from annotate.models import Campaign, Invitation
from annotate.services.preferences import preferences_of
from config.locale import supported_language

log = logging.getLogger(__name__)


def mail_enabled() -> bool:
    return bool(getattr(settings, "EMAIL_ENABLED", False))


def _send(*, to: str, subject: str, template: str, context: dict) -> bool:
    """Send one mail; False (logged, not raised) when the server refuses it: the manager still
    has the link on the page."""
    body = render_to_string(template, context)
    try:
        send_mail(subject, body, None, [to])
    except OSError:  # SMTP errors and refused connections are OSErrors
        log.warning("could not send %r to %s", subject, to, exc_info=True)
        return False
    return True


def mail_language(*, campaign: Campaign, reader: AbstractBaseUser | None = None) -> str:
    """The language a mail to `reader` (None: no account yet) about `campaign` is written in."""
    own = preferences_of(reader).language if reader is not None else ""
    for code in (own, campaign.language):
        language = supported_language(code)
        if language:
            return language
    return translation.get_language()


def invitation_mail(*, invitation: Invitation, link: str, sender: str) -> bool:
    with translation.override(mail_language(campaign=invitation.campaign)):
        subject = _("Invitation to “%(campaign)s”") % {"campaign": invitation.campaign.name}
        context = {"invitation": invitation, "link": link, "sender": sender}
        return _send(
            to=invitation.email, subject=subject, template="annotate/email/invitation.txt",
            context=context,
        )  # fmt: skip


def reset_mail(*, user: AbstractBaseUser, campaign: Campaign, link: str, sender: str) -> bool:
    """A reset link to `user`, a rater of `campaign` (whose manager made it)."""
    with translation.override(mail_language(campaign=campaign, reader=user)):
        subject = _("Set a new password")
        context = {"username": user.get_username(), "link": link, "sender": sender}
        return _send(
            to=user.email, subject=subject, template="annotate/email/reset.txt", context=context
        )
