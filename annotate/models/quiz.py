"""The qualification quiz's records (annotate/services/quiz.py): a rater's attempts, their
answers and the extra attempts a manager granted. Quiz answers live here only, never as
Grades or Verdicts, so nothing that counts, aggregates or exports real work can meet them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotate.models.campaigns import Campaign, Label
from annotate.models.judgments import PoolItem
from annotate.models.sxs import Comparison, SxsTask


class QuizAttempt(models.Model):
    """One attempt of a rater at a scope's quiz: the campaign's graded quiz (comparison
    empty) or a comparison's side-by-side quiz. `drawn` lists the gold pool items or tasks
    asked, in order (drawn at random when the attempt began)."""

    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="quiz_tries",
        verbose_name=_("rater"),
    )
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="quiz_tries", verbose_name=_("campaign")
    )
    comparison = models.ForeignKey(
        Comparison,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="quiz_tries",
        verbose_name=_("comparison"),
    )
    drawn = models.JSONField(default=list, verbose_name=_("drawn"))
    pass_percent = models.PositiveSmallIntegerField(
        verbose_name=_("pass percent")
    )  # the mark when it began
    correct = models.PositiveSmallIntegerField(default=0, verbose_name=_("correct"))
    passed = models.BooleanField(null=True, verbose_name=_("passed"))  # None while under way
    started_at = models.DateTimeField(auto_now_add=True, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))

    class Meta:
        verbose_name = _("quiz attempt")
        verbose_name_plural = _("quiz attempts")
        ordering = ["started_at", "pk"]
        indexes = [models.Index(fields=["campaign", "comparison", "rater"])]

    def __str__(self) -> str:
        return f"quiz attempt {self.pk} of rater {self.rater_id}"

    @property
    def total(self) -> int:
        return len(self.drawn)

    @property
    def percent(self) -> float:
        return 100.0 * self.correct / self.total if self.total else 0.0


class QuizAnswer(models.Model):
    """One answer in an attempt: a label (graded) or the side preferred with the candidate's
    side that rater saw (side-by-side), and whether it matched the gold."""

    attempt = models.ForeignKey(
        QuizAttempt, on_delete=models.CASCADE, related_name="answers", verbose_name=_("attempt")
    )
    position = models.PositiveSmallIntegerField(verbose_name=_("position"))
    pool_item = models.ForeignKey(
        PoolItem,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("pool item"),
    )
    task = models.ForeignKey(
        SxsTask,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("task"),
    )
    label = models.ForeignKey(
        Label,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("label"),
    )
    chosen = models.CharField(
        max_length=5, blank=True, verbose_name=_("chosen")
    )  # left, right, same
    value = models.CharField(
        max_length=1, blank=True, verbose_name=_("value")
    )  # G, S, B for the candidate
    correct = models.BooleanField(verbose_name=_("correct"))
    seconds = models.FloatField(null=True, blank=True, verbose_name=_("seconds"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("quiz answer")
        verbose_name_plural = _("quiz answers")
        ordering = ["attempt", "position"]
        constraints = [
            models.UniqueConstraint(fields=["attempt", "position"], name="quizanswer_once"),
        ]

    def __str__(self) -> str:
        return f"quiz answer {self.attempt_id}/{self.position}"


class QuizGrant(models.Model):
    """One more attempt a manager granted a rater at a scope's quiz."""

    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("rater"),
    )
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="+", verbose_name=_("campaign")
    )
    comparison = models.ForeignKey(
        Comparison,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("comparison"),
    )
    manager = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("manager"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("quiz grant")
        verbose_name_plural = _("quiz grants")

    def __str__(self) -> str:
        return f"quiz grant to {self.rater_id}"
