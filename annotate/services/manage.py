"""What a manager changes from the web UI besides the label scale: settings, raters, how many
raters the items of a query need."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from annotate.judging.graded import lease_release
from annotate.judging.sxs import sxs_lease_release
from annotate.models import Campaign, Membership, PoolItem, Query, Role
from annotate.services.campaigns import campaign_create, membership_set

SETTINGS_FIELDS = (
    "name",
    "description",
    "guidelines",
    "image_hosts",
    "card",
    "highlight_terms",
    "overlap",
    "lease_minutes",
    "aggregation",
    "relevant_from",
    "language",
)


class ManageRefused(ValueError):
    """A change the manager asked for that cannot be made; `message` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@transaction.atomic
def campaign_open(
    *, created_by: AbstractBaseUser, lease_minutes: int = 15, **fields: object
) -> Campaign:
    """Create a campaign from the web form: campaign_create (default scale, the creator as
    manager) plus the settings it does not take."""
    campaign = campaign_create(created_by=created_by, **fields)
    return campaign_update(campaign=campaign, lease_minutes=lease_minutes)


def campaign_update(*, campaign: Campaign, **values: object) -> Campaign:
    """Change a campaign's settings. Only the fields a manager may edit are accepted; the slug
    stays, since links and API clients use it."""
    unknown = set(values) - set(SETTINGS_FIELDS)
    if unknown:
        raise ValueError(f"not editable here: {', '.join(sorted(unknown))}")
    for field, value in values.items():
        setattr(campaign, field, value)
    campaign.save(update_fields=list(values))
    return campaign


def rater_add(*, campaign: Campaign, username: str) -> AbstractBaseUser:
    """Make an existing account a rater of the campaign."""
    username = username.strip()
    User = get_user_model()
    try:
        user = User.objects.get(**{User.USERNAME_FIELD: username})
    except User.DoesNotExist:
        raise ManageRefused(
            _(
                "There is no account named “%(name)s”. Invite the person instead (a link "
                "with which they make their own account), or ask an administrator to create it."
            )
            % {"name": username}
        ) from None
    if not user.is_active:
        raise ManageRefused(_("The account “%(name)s” is deactivated.") % {"name": username})
    role = campaign.memberships.filter(user=user).values_list("role", flat=True).first()
    if role == Role.RATER:
        raise ManageRefused(_("%(name)s is already a rater of this campaign.") % {"name": username})
    if role == Role.MANAGER:
        # One role per campaign: making a manager a rater would take away their manager role.
        raise ManageRefused(
            _("%(name)s manages this campaign and cannot also be its rater.") % {"name": username}
        )
    membership_set(campaign=campaign, user=user, role=Role.RATER)
    return user


@transaction.atomic
def rater_remove(*, campaign: Campaign, user: AbstractBaseUser) -> int:
    """Take a rater off the campaign. Their grades, skips and verdicts stay (they are data);
    the items and side-by-side tasks they hold go back to the queues at once. Returns how many
    leases were released."""
    deleted, _by_model = Membership.objects.filter(
        campaign=campaign, user=user, role=Role.RATER
    ).delete()
    if not deleted:
        raise ManageRefused(
            _("%(name)s is not a rater of this campaign.") % {"name": user.get_username()}
        )
    released = lease_release(campaign=campaign, rater=user)
    for comparison in campaign.comparisons.all():  # side-by-side tasks they hold, too
        released += sxs_lease_release(comparison=comparison, rater=user)
    return released


def raters_needed_set(*, campaign: Campaign, query: Query, raters_needed: int | None) -> int:
    """Set how many raters each item of one query needs (None: the campaign's overlap).
    Returns the number of items changed. Lowering it below the grades an item already has
    simply stops the item being offered; no grade is removed."""
    if query.campaign_id != campaign.pk:
        raise ManageRefused(_("That query is not part of this campaign."))
    if raters_needed is not None and not 1 <= raters_needed <= 50:
        raise ManageRefused(_("Raters needed must be between 1 and 50."))
    return PoolItem.objects.filter(campaign=campaign, query=query).update(
        raters_needed=raters_needed
    )
