"""`{% sxs_queues user %}`: the rater's side-by-side queues, for the home page.

A template tag rather than context from the home view, so the home page (shared with graded
judging) gains the section with one line in its template.
"""

from __future__ import annotations

from django import template
from django.utils import timezone

from annotate.judging.progress import rater_sxs_progress
from annotate.selectors_sxs import rater_comparisons, rater_label

register = template.Library()


@register.inclusion_tag("annotate/_sxs_queues.html")
def sxs_queues(user) -> dict:
    now = timezone.now()
    rows = [
        {
            "comparison": comparison,
            "label": rater_label(comparison),
            "progress": rater_sxs_progress(rater=user, comparison=comparison, now=now),
        }
        for comparison in rater_comparisons(user)
    ]
    return {"rows": rows}
