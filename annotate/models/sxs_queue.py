"""The side-by-side queue's moving parts: leases on tasks, and the history of changed verdicts.

A lease records the side the candidate is shown on for that rater, decided when the task is
handed out: the page the rater sees and the verdict stored from it then agree by construction,
whatever the client sends. Like pool-item leases, an expired lease simply stops counting.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotate.models.sxs import Side, SxsTask, Verdict, VerdictValue


class TaskLease(models.Model):
    task = models.ForeignKey(
        SxsTask, on_delete=models.CASCADE, related_name="leases", verbose_name=_("task")
    )
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("rater"),
    )
    candidate_side = models.CharField(
        max_length=1, choices=Side.choices, verbose_name=_("candidate side")
    )
    expires_at = models.DateTimeField(verbose_name=_("expires at"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    # Held when handles replaced numeric ids (#24); see Lease.legacy.
    legacy = models.BooleanField(default=False, db_default=False, verbose_name=_("legacy"))

    class Meta:
        verbose_name_plural = _("side-by-side leases")
        verbose_name = _("side-by-side lease")
        constraints = [
            models.UniqueConstraint(fields=["task", "rater"], name="tasklease_one_per_rater"),
            models.CheckConstraint(
                condition=models.Q(candidate_side__in=["L", "R"]), name="tasklease_side_lr"
            ),
        ]
        indexes = [
            models.Index(fields=["rater", "expires_at"]),
            models.Index(fields=["task", "expires_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.rater_id} holds task {self.task_id} until {self.expires_at}"


class VerdictChange(models.Model):
    """An earlier answer a rater replaced: changing a verdict never loses what was said."""

    verdict = models.ForeignKey(
        Verdict, on_delete=models.CASCADE, related_name="history", verbose_name=_("verdict")
    )
    value = models.CharField(
        max_length=1, choices=VerdictValue.choices, blank=True, verbose_name=_("value")
    )
    cant_judge = models.BooleanField(default=False, verbose_name=_("cant judge"))
    strength = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("strength"))
    reason = models.TextField(blank=True, verbose_name=_("reason"))
    given_at = models.DateTimeField(verbose_name=_("given at"))
    replaced_at = models.DateTimeField(auto_now_add=True, verbose_name=_("replaced at"))

    class Meta:
        verbose_name = _("verdict change")
        verbose_name_plural = _("verdict changes")
        ordering = ["verdict", "replaced_at"]

    def __str__(self) -> str:
        return f"{self.verdict_id}: {self.value or 'cannot judge'} until {self.replaced_at}"
