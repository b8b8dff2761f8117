"""Who may see what through the API: the pages' rules (annotate.selectors), applied to querysets.

- A campaign's manager (or a superuser) sees everything of it.
- A rater sees their own queue, grades and verdicts, blind as on the judging pages.
- Anyone else gets 404 for a campaign's things, so they cannot learn that it exists; an
  anonymous caller never gets past authentication (401).
"""

from __future__ import annotations

from django.db.models import QuerySet

from annotate.models import Campaign, Role
from annotate.selectors import User, campaign_managed_by, campaigns_for
from annotate.selectors_judge import campaign_rated_by


def managed(user: User) -> QuerySet[Campaign]:
    return campaigns_for(user, role=Role.MANAGER)


def rated(user: User) -> QuerySet[Campaign]:
    return campaigns_for(user, role=Role.RATER)


def managed_ids(user: User) -> set[int]:
    return set(managed(user).values_list("pk", flat=True))


def managed_campaign(user: User, slug: str) -> Campaign:
    """The campaign if the user manages it; Http404 (a JSON 404 in the API) otherwise."""
    return campaign_managed_by(user, slug)


def rated_campaign(user: User, slug: str) -> Campaign:
    """The campaign if the user is one of its raters; Http404 otherwise."""
    return campaign_rated_by(user, slug)
