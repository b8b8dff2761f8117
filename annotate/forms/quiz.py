"""The manager's quiz forms: a scope's settings, another attempt for a rater."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from annotate.models.quiz_settings import MAX_QUIZ_ATTEMPTS, MAX_QUIZ_ITEMS


class QuizSettingsForm(forms.Form):
    comparison = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    quiz_required = forms.BooleanField(required=False, label=_("Require the qualification quiz"))
    quiz_items = forms.IntegerField(
        min_value=1, max_value=MAX_QUIZ_ITEMS, initial=10, label=_("Quiz questions")
    )
    quiz_pass_percent = forms.IntegerField(
        min_value=1, max_value=100, initial=80, label=_("Pass mark (%)")
    )
    quiz_attempts = forms.IntegerField(
        min_value=1, max_value=MAX_QUIZ_ATTEMPTS, initial=3, label=_("Attempts allowed")
    )


class QuizGrantForm(forms.Form):
    comparison = forms.IntegerField(required=False, min_value=1, max_value=2**62)
    rater = forms.IntegerField(min_value=1, max_value=2**62)
