"""A manager's ruling on a pool item the raters disagree on. It overrides the aggregate of the
raters' grades for that pair wherever qrels are made (annotate.services.aggregation), and is
shown as adjudicated wherever the pair's label is shown."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotate.models.campaigns import Label
from annotate.models.judgments import PoolItem


class Adjudication(models.Model):
    pool_item = models.OneToOneField(
        PoolItem, on_delete=models.CASCADE, related_name="adjudication", verbose_name=_("pool item")
    )
    label = models.ForeignKey(
        Label, on_delete=models.RESTRICT, related_name="adjudications", verbose_name=_("label")
    )
    # The manager may later lose the role or the account: the ruling stands, unsigned.
    manager = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("manager"),
    )
    note = models.TextField(blank=True, verbose_name=_("note"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    # A ruling may be changed; report snapshots watch this to know they are stale.
    changed_at = models.DateTimeField(auto_now=True, verbose_name=_("changed at"))

    class Meta:
        verbose_name = _("adjudication")
        verbose_name_plural = _("adjudications")

    def __str__(self) -> str:
        return f"{self.pool_item_id} settled as {self.label}"
