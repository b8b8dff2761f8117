"""The forms behind every judging answer, from a plain HTML post, the judging pages' JSON
(static/js) or the REST API: AnswerForm holds what every kind's answer shares (the time taken,
a refusal's sentence), JudgeForm a grade, can't-judge or skip, VerdictForm (forms/sxs.py) a
side-by-side verdict."""

from __future__ import annotations

import time

from django import forms
from django.utils.translation import gettext_lazy as _

from annotate.judging.handles import looks_like_reference

ACTION_LABEL = "label"
ACTION_SKIP = "skip"
ACTION_CANT_JUDGE = "cant_judge"
ACTION_UNSKIP = "unskip"
MAX_SECONDS = 24 * 3600


def handle_or_id(value: str) -> None:
    """A handle from the queue (annotate/judging/handles.py), or a numeric id as sent before."""
    if not looks_like_reference(value):
        raise forms.ValidationError(_("That is not one of your items or tasks."))


class _SharedFields(dict):
    """A form's base fields that every instance uses as they are, without deep copies."""

    def __deepcopy__(self, memo: dict) -> dict:
        return dict(self)


class AnswerForm(forms.Form):
    """What every judging answer carries besides its choice.

    Every answer builds one of these, and Django deep-copies a form's fields for each instance
    in case one instance changes them (a widget's attributes when rendering, say): six fields,
    a tenth of a grade's CPU. These forms are only ever validated, never rendered or changed,
    so their instances share the class's fields (answer_fields_shared)."""

    # The client measures the time on its own clock; without JavaScript the page carries the
    # time it was rendered (server clock) and the time taken is counted on the server.
    seconds = forms.FloatField(min_value=0, max_value=MAX_SECONDS, required=False)
    shown_at = forms.FloatField(required=False)
    # The token of the rater's stored answer that the sending page showed (see
    # annotate/judging/kinds.py Submission.replaces); empty from a page that showed none.
    replaces = forms.CharField(max_length=40, required=False)

    def clean(self) -> dict:
        data = super().clean()
        if data.get("seconds") is None and data.get("shown_at") is not None:
            taken = time.time() - data["shown_at"]
            data["seconds"] = taken if 0 <= taken <= MAX_SECONDS else None
        return data

    def error_text(self) -> str:
        """One readable sentence for a refusal message."""
        return " ".join(str(e) for errors in self.errors.values() for e in errors)


class JudgeForm(AnswerForm):
    # The rater's handle for the item (judging/handles.py), or a numeric id sent before them.
    item = forms.CharField(
        max_length=32,
        validators=[handle_or_id],
        error_messages={"required": _("Which item?")},
    )
    action = forms.ChoiceField(
        choices=[(a, a) for a in (ACTION_LABEL, ACTION_SKIP, ACTION_CANT_JUDGE, ACTION_UNSKIP)],
        required=False,
    )
    label = forms.IntegerField(min_value=1, required=False)
    comment = forms.CharField(max_length=2000, required=False)

    def clean(self) -> dict:
        data = super().clean()
        action = data.get("action") or ACTION_LABEL
        if action == ACTION_LABEL and data.get("label") is None and "label" not in self.errors:
            self.add_error("label", _("Choose a label."))
        data["action"] = action
        return data


def answer_fields_shared(form_class: type[AnswerForm]) -> None:
    """Let the form's instances share its fields (see AnswerForm), the kind's own fields first,
    as a refusal's sentence names them in this order."""
    fields = dict(form_class.base_fields)
    shared = {name: fields.pop(name) for name in AnswerForm.base_fields}
    form_class.base_fields = _SharedFields({**fields, **shared})


answer_fields_shared(JudgeForm)
