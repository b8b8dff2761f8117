"""Rank bands: the grade a competitor's position earns.

A band is a range of positions and a grade of the campaign's scale; a position in no band gets
no label (unjudged, not "bad"). The default follows the scale, highest grade first:

    positions 1-3   -> the top grade
    positions 4-10  -> the middle grade (the ((n - 1) // 2)-th of n grades, highest first)
    positions 11-20 -> the lowest grade
    beyond 20       -> no label

so Good / Fair / Bad gives 1-3 Good, 4-10 Fair, 11-20 Bad; a two-label scale 1 / 0 gives 1-10
grade 1 and 11-20 grade 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from django.utils.translation import gettext as _

from annotate.models import Campaign
from annotate.services.labels.common import grade_for, scale_grades

DEFAULT_LIMITS = ((1, 3), (4, 10), (11, 20))
_BAND = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?:\s*(.+?)\s*$")


@dataclass(frozen=True)
class Band:
    first: int
    last: int
    grade: float

    def __str__(self) -> str:
        ranks = f"{self.first}" if self.first == self.last else f"{self.first}-{self.last}"
        return f"{ranks}:{self.grade:g}"


def default_bands(campaign: Campaign) -> list[Band]:
    grades = scale_grades(campaign)
    picks = (grades[0], grades[(grades.size - 1) // 2], grades[-1])
    return [
        Band(first, last, float(g)) for (first, last), g in zip(DEFAULT_LIMITS, picks, strict=True)
    ]


def parse_bands(text: str, *, campaign: Campaign) -> list[Band]:
    """Bands from ``"1-3:Good, 4-10:2, 11-20:Bad"`` (a grade or a label name per range; a
    single position as ``"1:Good"``). Raises ValueError naming the first problem: a range that
    runs backwards, starts below 1, overlaps another, or a grade not on the scale."""
    bands: list[Band] = []
    for part in (p for p in text.split(",") if p.strip()):
        match = _BAND.match(part)
        if match is None:
            raise ValueError(
                _("band %(part)s is not FIRST-LAST:GRADE (e.g. 1-3:Good)")
                % {"part": repr(part.strip())}
            )
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if first < 1 or last < first:
            raise ValueError(
                _("band %(part)s: positions run from 1 upwards") % {"part": repr(part.strip())}
            )
        bands.append(Band(first, last, grade_for(campaign, match.group(3))))
    if not bands:
        raise ValueError(_("no bands given"))
    bands.sort(key=lambda b: b.first)
    for before, after in pairwise(bands):
        if after.first <= before.last:
            raise ValueError(
                _("bands %(before)s and %(after)s overlap") % {"before": before, "after": after}
            )
    return bands


def bands_text(bands: list[Band]) -> str:
    return ", ".join(str(b) for b in bands)


def band_grades(positions: np.ndarray, bands: list[Band]) -> np.ndarray:
    """The grade of each position (1-based), NaN where no band covers it."""
    first = np.array([b.first for b in bands], dtype=np.int64)
    last = np.array([b.last for b in bands], dtype=np.int64)
    grade = np.array([b.grade for b in bands], dtype=np.float64)
    positions = np.asarray(positions, dtype=np.int64)
    which = np.searchsorted(first, positions, side="right") - 1
    inside = (which >= 0) & (positions <= last[np.maximum(which, 0)])
    return np.where(inside, grade[np.maximum(which, 0)], np.nan)
