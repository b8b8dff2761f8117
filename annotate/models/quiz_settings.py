"""The qualification quiz's settings (issue 18), the same four fields on a campaign (its
graded work) and on a comparison (its side-by-side work): abstract, so each keeps them in its
own row and the queue reads them with the scope it already holds."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

MAX_QUIZ_ITEMS = 100
MAX_QUIZ_ATTEMPTS = 50


class QuizSettings(models.Model):
    quiz_required = models.BooleanField(
        default=False,
        verbose_name=_("Require the qualification quiz"),
        help_text=_("Raters get real work only after passing it."),
    )
    quiz_items = models.PositiveSmallIntegerField(
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_QUIZ_ITEMS)],
        verbose_name=_("Quiz questions"),
        help_text=_("Gold questions drawn at random for each attempt."),
    )
    quiz_pass_percent = models.PositiveSmallIntegerField(
        default=80,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        verbose_name=_("Pass mark (%)"),
    )
    quiz_attempts = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_QUIZ_ATTEMPTS)],
        verbose_name=_("Attempts allowed"),
    )

    class Meta:
        abstract = True
