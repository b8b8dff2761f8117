"""A manager's ruling on a pool item the raters disagree on. It overrides the aggregate of the
raters' grades for that pair wherever qrels are made (annotate.services.aggregation), and is
shown as adjudicated wherever the pair's label is shown."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotate.models.campaigns import Label
from annotate.models.judgments import PoolItem


class Adjudication(models.Model):
    pool_item = models.OneToOneField(
        PoolItem, on_delete=models.CASCADE, related_name="adjudication"
    )
    label = models.ForeignKey(Label, on_delete=models.RESTRICT, related_name="adjudications")
    # The manager may later lose the role or the account: the ruling stands, unsigned.
    manager = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A ruling may be changed; report snapshots watch this to know they are stale.
    changed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.pool_item_id} settled as {self.label}"
