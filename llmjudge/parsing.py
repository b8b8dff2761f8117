"""Reading a model's answer strictly: one JSON object with a "grade" of the label scale (by
its number or its name), or the whole reply being a grade. Anything else is no answer: a
grade found somewhere in a paragraph is not taken, since a reply that argues both ways
would then be read as whichever number came first."""

from __future__ import annotations

import json
import math
import re

_FENCE = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.DOTALL)


def parse_grade(reply: str, *, grades: dict[str, float]) -> float | None:
    """The grade ``reply`` gives, or None. ``grades`` maps each label's name (lower case) and
    each grade written as text (``"3"``) to the grade."""
    text = reply.strip()
    fenced = _FENCE.match(text)
    if fenced:  # a single fenced block is a common wrapping, not a second answer
        text = fenced.group(1).strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            return None
        if not isinstance(value, dict) or "grade" not in value:
            return None
        return _grade(value["grade"], grades)
    return _grade(text, grades)


def _grade(value, grades: dict[str, float]) -> float | None:
    allowed = set(grades.values())
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) and float(value) in allowed else None
    if isinstance(value, str):
        key = value.strip().lower()
        if key in grades:
            return grades[key]
        try:
            number = float(key)
        except ValueError:
            return None
        return number if number in allowed else None
    return None


def grade_names(scale: list[tuple[str, float]]) -> dict[str, float]:
    """The ``grades`` argument of parse_grade for a scale of (name, grade)."""
    out: dict[str, float] = {}
    for name, grade in scale:
        out[name.strip().lower()] = float(grade)
        out[f"{float(grade):g}"] = float(grade)
    return out
