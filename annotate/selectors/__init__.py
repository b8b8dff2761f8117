"""Reads, grouped by concept: who may see what (``access``, its rules re-exported here since
every view and the API start with them) and the judging progress a manager reads
(``progress``)."""

from annotate.selectors.access import (
    User,
    campaign_managed_by,
    campaign_overview,
    campaigns_for,
    is_manager,
    user_roles,
)

__all__ = [
    "User",
    "campaign_managed_by",
    "campaign_overview",
    "campaigns_for",
    "is_manager",
    "user_roles",
]
