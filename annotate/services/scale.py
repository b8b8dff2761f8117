"""Editing a campaign's label scale.

The scale is saved whole: the manager sends every label (kept, changed, new or deleted) in the
order shown, and either all of it is written or nothing is.

Rules (each broken rule is one message naming the label):
- two to nine labels (number keys 1..n follow the order, so at most nine);
- names, grades and keys unique within the scale;
- a key is a single letter, and not one the judging screen already uses: S skips, X marks
  "can't judge", ? opens the help; digits are refused because 1..n are given by position;
- "relevant from" is a grade of the scale or lies between two of them;
- a label that has grades (or a grade's history) cannot be deleted: grades point at it.

Changing the grade of a label that has grades is allowed, with a warning: those grades now
count with the new value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, ProtectedError, RestrictedError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotate import inputs
from annotate.models import Adjudication, Campaign, GoldItem, Grade, GradeChange, Label

MIN_LABELS = 2
MAX_LABELS = 9
RESERVED_KEYS = {
    "s": gettext_lazy("S skips an item"),
    "x": gettext_lazy("X marks an item as can't judge"),
    "?": gettext_lazy("? opens the help"),
}


@dataclass(frozen=True)
class LabelSpec:
    """One label as the manager sent it. `id` is None for a new label."""

    name: str
    grade: float
    key: str
    id: int | None = None
    delete: bool = False


class ScaleInvalid(ValueError):
    """The scale was not saved; `messages` says why, one line per problem."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


def key_problem(key: str) -> str | None:
    """Why a key cannot be used, or None when it can."""
    key = key.strip().lower()
    if key in RESERVED_KEYS:
        return _("%(why)s, so it cannot be a label's key") % {"why": RESERVED_KEYS[key]}
    if key.isdigit():
        return _("number keys 1..n are given by the order of the labels; choose a letter")
    if len(key) != 1 or not ("a" <= key <= "z"):
        return "a key is a single letter from A to Z"
    return None


def _used_label_ids(label_ids: list[int]) -> dict[int, int]:
    """How many grades (current or in a grade's history) point at each label; a ruling or a
    gold item's answer counts as one too (their label cannot be deleted under them)."""
    used: dict[int, int] = {}
    for model in (Grade, GradeChange, Adjudication, GoldItem):
        rows = (
            model.objects.filter(label_id__in=label_ids)
            .values("label_id")
            .annotate(n=Count("pk"))
            .values_list("label_id", "n")
        )
        for label_id, n in rows:
            used[label_id] = used.get(label_id, 0) + n
    return used


def _check(
    kept: list[LabelSpec], deleted: list[LabelSpec], existing: dict[int, Label], used: dict
) -> list[str]:
    errors: list[str] = []
    if len(kept) < MIN_LABELS:
        errors.append(_("A scale needs at least %(n)s labels.") % {"n": MIN_LABELS})
    if len(kept) > MAX_LABELS:
        errors.append(
            _("A scale has at most %(n)s labels (number keys 1 to 9).") % {"n": MAX_LABELS}
        )
    seen: tuple[dict, dict, dict] = ({}, {}, {})  # names, keys, grades -> the label's name
    for spec in kept:
        errors.extend(_label_problems(spec, *seen))
    for spec in deleted:
        label = existing[spec.id]
        if used.get(spec.id):
            errors.append(
                _(
                    "“%(name)s” cannot be deleted: %(used)s grade(s) use it. Rename it or "
                    "change its grade instead."
                )
                % {"name": label.name, "used": used[spec.id]}
            )
    return errors


def _label_problems(
    spec: LabelSpec,
    seen_names: dict[str, str],
    seen_keys: dict[str, str],
    seen_grades: dict[float, str],
) -> list[str]:
    """What is wrong with one label of the new scale, given the labels before it."""
    name = spec.name.strip()
    if not name:
        return [_("Every label needs a name.")]
    errors = []
    if len(name) > 40:
        errors.append(_("“%(name)s…”: a name has at most 40 characters.") % {"name": name[:40]})
    if name.lower() in seen_names:
        errors.append(_("Two labels are named “%(name)s”.") % {"name": name})
    seen_names[name.lower()] = name
    problem = key_problem(spec.key)
    key = spec.key.strip().lower()
    if problem:
        errors.append(
            _("“%(name)s”: key “%(key)s”: %(problem)s.")
            % {"name": name, "key": spec.key.strip(), "problem": problem}
        )
    elif key in seen_keys:
        errors.append(
            _("“%(name)s” and “%(other)s” have the same key %(key)s.")
            % {"name": name, "other": seen_keys[key], "key": key.upper()}
        )
    seen_keys.setdefault(key, name)
    bound = inputs.limit("grade_abs")
    if not math.isfinite(spec.grade):
        errors.append(_("“%(name)s”: the grade must be a number.") % {"name": name})
    elif abs(spec.grade) > bound:
        # As for imported grades: 2^grade - 1 (the exponential gain) must stay a float.
        errors.append(
            _("“%(name)s”: the grade must lie between -%(bound)s and %(bound)s.")
            % {"name": name, "bound": f"{bound:,}"}
        )
    elif spec.grade in seen_grades:
        errors.append(
            _("“%(name)s” and “%(other)s” have the same grade %(grade)s.")
            % {"name": name, "other": seen_grades[spec.grade], "grade": f"{spec.grade:g}"}
        )
    seen_grades.setdefault(spec.grade, name)
    return errors


def _relevant_problem(kept: list[LabelSpec], relevant_from: float) -> str | None:
    grades = [spec.grade for spec in kept if math.isfinite(spec.grade)]
    if not grades or not math.isfinite(relevant_from):
        return _("“Relevant from” must be a number.") if grades else None
    low, high = min(grades), max(grades)
    if not low <= relevant_from <= high:
        return _(
            "“Relevant from” (%(value)s) must be a grade of the scale or lie between them "
            "(%(low)s to %(high)s)."
        ) % {"value": f"{relevant_from:g}", "low": f"{low:g}", "high": f"{high:g}"}
    return None


def relevant_from_problem(*, campaign: Campaign, relevant_from: float) -> str | None:
    """Check "relevant from" against the campaign's current scale (the settings form uses it)."""
    kept = [LabelSpec(name=x.name, grade=x.grade, key=x.key) for x in campaign.labels.all()]
    return _relevant_problem(kept, relevant_from)


@transaction.atomic
def scale_save(
    *, campaign: Campaign, labels: Sequence[LabelSpec], relevant_from: float
) -> list[str]:
    """Replace the campaign's scale with `labels` (in the order shown) and set "relevant
    from". Raises ScaleInvalid and writes nothing when a rule is broken; returns warnings."""
    # One editor at a time: a second save waits here and then validates against the first.
    Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
    existing = {label.pk: label for label in campaign.labels.all()}
    sent_ids = [spec.id for spec in labels if spec.id is not None]
    unknown = [i for i in sent_ids if i not in existing]
    missing = set(existing) - set(sent_ids)
    if unknown or missing or len(sent_ids) != len(set(sent_ids)):
        raise ScaleInvalid([_("The scale changed since this page was loaded; reload and retry.")])
    kept = [spec for spec in labels if not spec.delete]
    deleted = [spec for spec in labels if spec.delete and spec.id is not None]
    used = _used_label_ids(list(existing))
    errors = _check(kept, deleted, existing, used)
    problem = _relevant_problem(kept, relevant_from)
    if problem:
        errors.append(problem)
    if errors:
        raise ScaleInvalid(errors)

    warnings = [
        _("%(used)s grade(s) given as “%(name)s” now count as %(grade)s (was %(was)s).")
        % {
            "used": used[spec.id],
            "name": existing[spec.id].name,
            "grade": f"{spec.grade:g}",
            "was": f"{existing[spec.id].grade:g}",
        }
        for spec in kept
        if spec.id is not None and used.get(spec.id) and spec.grade != existing[spec.id].grade
    ]
    try:
        Label.objects.filter(pk__in=[spec.id for spec in deleted]).delete()
    except (ProtectedError, RestrictedError):  # a grade arrived since the check above
        raise ScaleInvalid(["A label to delete has just been used; reload and retry."]) from None
    _write(campaign, kept, existing)
    campaign.relevant_from = relevant_from
    campaign.save(update_fields=["relevant_from"])
    return warnings


def _write(campaign: Campaign, kept: list[LabelSpec], existing: dict[int, Label]) -> None:
    """Write the kept labels in order. The unique constraints on name, key, grade and position
    are checked row by row, so swapping two keys needs a first pass to placeholder values
    that no real label can have (circled digits are not letters; grades far below any scale)."""
    updates = [spec for spec in kept if spec.id is not None]
    for i, spec in enumerate(updates):
        label = existing[spec.id]
        label.name = f"\u2460{i}"
        label.key = chr(0x2460 + i)
        label.grade = -1e12 - i
        label.position = 1000 + i
    Label.objects.bulk_update(
        [existing[spec.id] for spec in updates], ["name", "key", "grade", "position"]
    )
    new = []
    for position, spec in enumerate(kept):
        values = {
            "name": spec.name.strip(),
            "key": spec.key.strip().lower(),
            "grade": float(spec.grade),
            "position": position,
        }
        if spec.id is None:
            new.append(Label(campaign=campaign, **values))
        else:
            label = existing[spec.id]
            for field, value in values.items():
                setattr(label, field, value)
    Label.objects.bulk_update(
        [existing[spec.id] for spec in updates], ["name", "key", "grade", "position"]
    )
    Label.objects.bulk_create(new)
