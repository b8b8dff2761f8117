"""Creating campaigns and managing who works on them."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q

from annotate.models import Aggregation, Campaign, Label, Membership, Role
from annotate.models.campaigns import DEFAULT_RELEVANT_FROM, default_scale
from annotate.services.slugs import slug_from_name, slug_unique

# What a campaign's URL name cannot be: /campaigns/new/ is the page that creates one.
RESERVED_SLUGS = frozenset({"new"})


class CampaignExists(ValueError):
    """A campaign of the very same name already holds a slug made from that name: the same form
    or command sent twice."""

    def __init__(self, slug: str) -> None:
        super().__init__(f"a campaign with slug {slug!r} already exists")
        self.slug = slug


def campaign_slug_for(name: str) -> str:
    """A free slug made from `name` in any script: the name's own; numbered (-2, -3 ...) when a
    campaign with another name holds it, as two names can transliterate alike (语言 and 预演 both
    give yuyan); random when nothing of the name survives. Raises CampaignExists when a campaign
    of this very name holds one made from it: a double submit is refused, not made twice."""
    base = slug_from_name(name)
    if base:
        # The slug this name was given before, numbered or not (yuyan, yuyan-2).
        made = Q(slug=base) | Q(slug__startswith=f"{base}-")
        before = Campaign.objects.filter(made, name=name).values_list("slug", flat=True).first()
        if before is not None:
            raise CampaignExists(before)
    return slug_unique(name, taken=_slug_taken, reserved=RESERVED_SLUGS)


def _slug_taken(slug: str) -> bool:
    return Campaign.objects.filter(slug=slug).exists()


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
    scale it gets the default one, named in the campaign's language (好 / 一般 / 差 in zh-Hans).
    Without a slug it gets campaign_slug_for(name) (CampaignExists for a double submit)."""
    if scale is None:
        scale = default_scale(language)
    if not scale:
        raise ValueError("a label scale needs at least one label")
    campaign = Campaign.objects.create(
        name=name,
        slug=slug or campaign_slug_for(name),
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
