"""Reads that decide who may see what. Views and the API both go through these, so the
rules are written once."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.http import Http404

from annotate.models import Campaign, Membership, Role
from config.db import hot_cursor

User = AbstractBaseUser | AnonymousUser


def campaigns_for(user: User, *, role: Role | str | None = None) -> QuerySet[Campaign]:
    """Campaigns the user belongs to (with the given role). Superusers manage every campaign."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    if user.is_superuser and role in (None, Role.MANAGER):
        return Campaign.objects.all()
    memberships = Membership.objects.filter(user=user)
    if role is not None:
        memberships = memberships.filter(role=role)
    return Campaign.objects.filter(pk__in=memberships.values("campaign_id"))


def campaign_managed_by(user: User, slug: str) -> Campaign:
    """The campaign with this slug if the user manages it; 404 otherwise, so an outsider
    cannot even learn that the campaign exists."""
    try:
        return campaigns_for(user, role=Role.MANAGER).get(slug=slug)
    except Campaign.DoesNotExist:
        raise Http404("No such campaign") from None


def is_manager(user: User, campaign: Campaign) -> bool:
    return campaigns_for(user, role=Role.MANAGER).filter(pk=campaign.pk).exists()


_ROLES = "SELECT DISTINCT role FROM annotate_membership WHERE user_id = %s"


def user_roles(user: User) -> set[str]:
    if not user.is_authenticated:
        return set()
    # Every page's navigation asks (annotate/context_processors.py): a hot statement, where
    # the ORM's query cost more to compile than to run.
    with hot_cursor() as cursor:
        cursor.execute(_ROLES, [user.pk])
        roles = {row[0] for row in cursor.fetchall()}
    if user.is_superuser:
        roles.add(Role.MANAGER)
    return roles


def campaign_overview(campaign: Campaign) -> dict[str, int]:
    """Counts a manager sees on the campaign page, one query each."""
    from annotate.models import Grade, PoolItem, Verdict

    documents = campaign.documents.count()
    return {
        "queries": campaign.queries.count(),
        "documents": documents,
        # The documents less the known ones: placeholders are in no index (models/corpus.py).
        "placeholders": documents - campaign.documents.filter(is_placeholder=False).count(),
        "systems": campaign.systems.count(),
        "runs": campaign.runs.count(),
        "pool_items": PoolItem.objects.filter(campaign=campaign).count(),
        "grades": Grade.objects.filter(pool_item__campaign=campaign).count(),
        "comparisons": campaign.comparisons.count(),
        "verdicts": Verdict.objects.filter(
            task__comparison__campaign=campaign, task__mirror_of__isnull=True, cant_judge=False
        ).count(),
        "label_sources": campaign.label_sources.count(),
        "raters": campaign.memberships.filter(role=Role.RATER).count(),
    }
