"""E-mails with one-time links (invitations, password resets), through Django's e-mail backend:
SMTP when EMAIL_HOST is set, the console in development, an in-memory outbox in tests. Without
any, the pages hand the links out to copy, and nothing here is called."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from annotate.models import Invitation

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


def invitation_mail(*, invitation: Invitation, link: str, sender: str) -> bool:
    subject = _("Invitation to “%(campaign)s”") % {"campaign": invitation.campaign.name}
    context = {"invitation": invitation, "link": link, "sender": sender}
    return _send(
        to=invitation.email, subject=subject, template="annotate/email/invitation.txt",
        context=context,
    )  # fmt: skip


def reset_mail(*, to: str, username: str, link: str, sender: str) -> bool:
    subject = _("Set a new password")
    context = {"username": username, "link": link, "sender": sender}
    return _send(to=to, subject=subject, template="annotate/email/reset.txt", context=context)
