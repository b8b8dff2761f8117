"""Creating campaigns and managing who works on them."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotate.models import Aggregation, Campaign, Label, Membership, Role
from annotate.models.campaigns import DEFAULT_RELEVANT_FROM, default_scale
from annotate.services.slugs import random_slug, slug_from_name


@transaction.atomic
def campaign_create(
    *,
    name: str,
    created_by: AbstractBaseUser | None = None,
    slug: str | None = None,
    scale: Sequence[tuple[str, float, str]] | None = None,
    relevant_from: float = DEFAULT_RELEVANT_FROM,
    aggregation: str = Aggregation.MEAN,
    overlap: int = 1,
    guidelines: str = "",
    description: str = "",
    language: str = "",
) -> Campaign:
    """Create a campaign with its label scale; the creator becomes its manager. Without a
    scale it gets the default one, named in the campaign's language (好 / 一般 / 差 in zh-Hans)."""
    if scale is None:
        scale = default_scale(language)
    if not scale:
        raise ValueError("a label scale needs at least one label")
    campaign = Campaign.objects.create(
        name=name,
        # Any script is transliterated; a name with nothing to make a slug from gets a random one.
        slug=slug or slug_from_name(name) or random_slug(),
        relevant_from=relevant_from,
        aggregation=aggregation,
        overlap=overlap,
        guidelines=guidelines,
        description=description,
        language=language,
        created_by=created_by,
    )
    Label.objects.bulk_create(
        Label(campaign=campaign, name=label, grade=grade, key=key.lower(), position=i)
        for i, (label, grade, key) in enumerate(scale)
    )
    if created_by is not None:
        Membership.objects.create(campaign=campaign, user=created_by, role=Role.MANAGER)
    return campaign


def membership_set(*, campaign: Campaign, user: AbstractBaseUser, role: Role | str) -> Membership:
    """Give a user a role in a campaign (replacing any role they had there)."""
    membership, _ = Membership.objects.update_or_create(
        campaign=campaign, user=user, defaults={"role": role}
    )
    return membership
