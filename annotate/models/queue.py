"""Leases: which rater holds which pool item for now.

A rater leases the open items of one query at a time. An item may be leased by at most as many
raters as it still needs grades, so no item collects more counted grades than it needs. An
expired lease simply stops counting; nothing has to clean it up for correctness.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotate.models.judgments import PoolItem


class Lease(models.Model):
    pool_item = models.ForeignKey(
        PoolItem, on_delete=models.CASCADE, related_name="leases", verbose_name=_("pool item")
    )
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("rater"),
    )
    expires_at = models.DateTimeField(verbose_name=_("expires at"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    # Held when handles replaced numeric ids (#24): an answer naming this item by its old id
    # (from the rater's offline outbox) is still taken. No new lease has it.
    legacy = models.BooleanField(default=False, db_default=False, verbose_name=_("legacy"))

    class Meta:
        verbose_name = _("lease")
        verbose_name_plural = _("leases")
        constraints = [
            models.UniqueConstraint(fields=["pool_item", "rater"], name="lease_one_per_rater")
        ]
        indexes = [
            models.Index(fields=["rater", "expires_at"]),
            models.Index(fields=["pool_item", "expires_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.rater_id} holds {self.pool_item_id} until {self.expires_at}"
