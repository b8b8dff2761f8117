"""Invitations to a campaign (issue 20): a manager makes single-use links that expire; whoever
opens one first picks a username and a password (or signs in with the account they have) and
becomes a rater, or a co-manager, of that one campaign.

The secret of a link is shown once and stored only as its digest. Accepting claims the
invitation with a conditional update inside the transaction that creates the account, so of
two people racing with one link one wins and the other gets a refusal, with no account made.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotate import inputs
from annotate.models import Campaign, Invitation, Membership, Role
from annotate.services.campaigns import membership_set
from annotate.services.links import link_digest, link_secret
from annotate.services.slugs import slug_unique

LIFETIMES = (7, 1, 30)  # days offered; the first is the default
MAX_BULK = 500  # people per bulk invitation
NAME_MAX = 150


class InvitationRefused(ValueError):
    """An invitation that cannot be made, revoked or accepted; `message` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Invitee:
    name: str
    email: str = ""


@dataclass(frozen=True)
class Issued:
    """An invitation just made, with its secret (never stored)."""

    invitation: Invitation
    secret: str


def invitations_create(
    *,
    campaign: Campaign,
    created_by: AbstractBaseUser,
    invitees: Sequence[Invitee],
    role: str = Role.RATER,
    days: int = LIFETIMES[0],
) -> list[Issued]:
    """One invitation per invitee (a name, an e-mail address, or both), all or none."""
    if role not in Role.values:
        raise InvitationRefused(_("Unknown role."))
    if days not in LIFETIMES:
        raise InvitationRefused(_("Choose a lifetime of 1, 7 or 30 days."))
    if not invitees:
        raise InvitationRefused(_("Give at least one name."))
    if len(invitees) > MAX_BULK:
        raise InvitationRefused(
            _("At most %(n)d people at once.") % {"n": MAX_BULK},
        )
    expires_at = timezone.now() + timedelta(days=days)
    issued = []
    with transaction.atomic():
        for invitee in invitees:
            secret, digest = link_secret()
            invitation = Invitation.objects.create(
                campaign=campaign,
                role=role,
                name=invitee.name,
                email=invitee.email,
                digest=digest,
                created_by=created_by,
                expires_at=expires_at,
            )
            issued.append(Issued(invitation, secret))
    return issued


def invitees_parse(text: str, *, source: str = "") -> list[Invitee]:
    """People from pasted text or an uploaded list: one per line, a name, an e-mail address,
    or `name, e-mail` (a comma, semicolon or tab between). Blank lines and a header line
    (name,email) are skipped. Raises InvitationRefused naming the line at fault (as
    `source:line` when a source, such as the file's name, is given)."""
    # newline="": the reader takes a lone CR as a line end; a CR in the middle of a line read
    # by StringIO's own line splitting stopped the csv module with an error (a 500).
    rows = csv.reader(io.StringIO(text.replace(";", ",").replace("\t", ","), newline=""))
    try:
        return _invitees(rows, source)
    except csv.Error as exc:
        where = f"{source}:{rows.line_num}" if source else _("line %(n)d") % {"n": rows.line_num}
        raise InvitationRefused(
            _("%(n)s: not a readable list (%(why)s)") % {"n": where, "why": exc}
        ) from None


def _invitees(rows, source: str) -> list[Invitee]:
    people = []
    for line, row in enumerate(rows, start=1):
        number = f"{source}:{line}" if source else _("line %(n)d") % {"n": line}
        cells = [cell.strip() for cell in row if cell.strip()]
        if not cells or (line == 1 and [c.lower() for c in cells] == ["name", "email"]):
            continue
        if len(cells) > 2:
            raise InvitationRefused(
                _("%(n)s: write a name and an e-mail address at most") % {"n": number}
            )
        name, email = [*cells, ""][:2]
        if len(cells) == 1 and "@" in name:
            name, email = "", name
        if inputs.text_problem(name, single_line=True) is not None:
            # NUL (PostgreSQL refused it: a 500) or another control character in a name.
            raise InvitationRefused(
                _("%(n)s: a name may not hold control characters") % {"n": number}
            )
        if len(name) > NAME_MAX:
            raise InvitationRefused(
                _("%(n)s: a name has at most %(max)d characters") % {"n": number, "max": NAME_MAX}
            )
        if email:
            try:
                validate_email(email)
            except ValidationError:
                raise InvitationRefused(
                    _("%(n)s: “%(email)s” is not an e-mail address") % {"n": number, "email": email}
                ) from None
        people.append(Invitee(name=name, email=email))
    return people


def upload_text(data: bytes) -> str:
    """An uploaded list as text: UTF-8 (with or without a byte-order mark), or GB18030, which
    Excel on Chinese Windows writes when it saves a CSV."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("gb18030")
    except UnicodeDecodeError:
        raise InvitationRefused(
            _("The file is neither UTF-8 nor GB18030 text; save it as CSV UTF-8.")
        ) from None


def invitation_revoke(*, campaign: Campaign, invitation_id: int) -> bool:
    """Revoke a pending invitation of the campaign; False when there is none to revoke."""
    updated = Invitation.objects.filter(
        pk=invitation_id, campaign=campaign, accepted_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())
    return bool(updated)


def invitation_by_secret(secret: str) -> Invitation | None:
    """The invitation of this link, in whatever state (the page says which); None when no
    link has this secret."""
    return Invitation.objects.select_related("campaign").filter(digest=link_digest(secret)).first()


def invitation_problem(invitation: Invitation | None) -> str:
    """Why this invitation cannot be accepted, or "" when it can."""
    if invitation is None:
        return _("This invitation link is not valid. Check that it was copied whole.")
    state = invitation.state
    if state == "accepted":
        return _("This invitation has already been used. Sign in with the account made with it.")
    if state == "revoked":
        return _("This invitation was withdrawn. Ask the campaign's manager for a new one.")
    if state == "expired":
        return _("This invitation has expired. Ask the campaign's manager for a new one.")
    return ""


def username_propose(invitation: Invitation) -> str:
    """A free username from the invitee's name (transliterated: 张伟 becomes zhangwei), or
    from their e-mail address, or a random one."""
    User = get_user_model()
    base = invitation.name or invitation.email.split("@")[0]
    # zhang.wei rather than zhang-wei: how sign-in names are usually written.
    return slug_unique(
        base,
        taken=lambda name: User.objects.filter(username__iexact=name.replace("-", ".")).exists(),
        max_length=NAME_MAX,
    ).replace("-", ".")


def _claim(invitation: Invitation, user: AbstractBaseUser) -> Membership:
    """Mark the invitation used by `user` (once: a conditional update) and give them its role."""
    claimed = Invitation.objects.filter(
        pk=invitation.pk,
        accepted_at__isnull=True,
        revoked_at__isnull=True,
        expires_at__gt=timezone.now(),
    ).update(accepted_at=timezone.now(), accepted_by=user)
    if not claimed:
        raise InvitationRefused(invitation_problem(invitation) or _("This link is used."))
    role = invitation.campaign.memberships.filter(user=user).values_list("role", flat=True).first()
    if role == Role.MANAGER and invitation.role == Role.RATER:
        # One role per campaign: accepting would take the manager role away.
        raise InvitationRefused(_("You manage this campaign already; this link is for a rater."))
    return membership_set(campaign=invitation.campaign, user=user, role=invitation.role)


def invitation_accept_new(*, secret: str, username: str, password: str) -> AbstractBaseUser:
    """Accept with a new account. Raises InvitationRefused (link or username) or Django's
    ValidationError (a weak password); nothing is written then."""
    User = get_user_model()
    username = username.strip()
    field = User._meta.get_field(User.USERNAME_FIELD)
    try:
        field.run_validators(username)
    except ValidationError as exc:
        raise InvitationRefused(" ".join(exc.messages)) from None
    if not username:
        raise InvitationRefused(_("Choose a username."))
    with transaction.atomic():
        invitation = invitation_by_secret(secret)
        problem = invitation_problem(invitation)
        if problem:
            raise InvitationRefused(problem)
        if User.objects.filter(**{f"{User.USERNAME_FIELD}__iexact": username}).exists():
            raise InvitationRefused(
                _("The username “%(name)s” is taken; choose another.") % {"name": username}
            )
        validate_password(password, user=User(**{User.USERNAME_FIELD: username}))
        try:
            with transaction.atomic():  # a savepoint, so the refusal below can be raised
                user = User.objects.create_user(
                    **{User.USERNAME_FIELD: username}, password=password, email=invitation.email
                )
        except IntegrityError:  # the same name taken a moment ago by someone else
            raise InvitationRefused(
                _("The username “%(name)s” is taken; choose another.") % {"name": username}
            ) from None
        _claim(invitation, user)
    return user


def invitation_accept_existing(*, secret: str, user: AbstractBaseUser) -> Membership:
    """Accept with the account the person is signed in with."""
    with transaction.atomic():
        invitation = invitation_by_secret(secret)
        problem = invitation_problem(invitation)
        if problem:
            raise InvitationRefused(problem)
        return _claim(invitation, user)


def invitations_of(campaign: Campaign) -> dict[str, list[Invitation]]:
    """The campaign's invitations by state: pending, accepted, and the rest (revoked or
    expired), newest first."""
    found: dict[str, list[Invitation]] = {"pending": [], "accepted": [], "closed": []}
    rows = campaign.invitations.select_related("accepted_by", "created_by")
    for invitation in rows:
        state = invitation.state
        found[state if state in found else "closed"].append(invitation)
    return found


def invitation_rows(issued: Iterable[Issued], link_of) -> Iterable[list[str]]:
    """The CSV a bulk invitation downloads: one line per person with their link."""
    yield ["name", "email", "role", "link", "expires"]
    for item in issued:
        invitation = item.invitation
        yield [
            invitation.name,
            invitation.email,
            invitation.role,
            link_of(item.secret),
            invitation.expires_at.isoformat(timespec="minutes"),
        ]
