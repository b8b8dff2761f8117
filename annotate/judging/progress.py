"""Reads of a rater's own progress, for either kind: what they did, and what is left that
they could still take (open tasks plus the ones they hold)."""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.utils import timezone

from annotate.judging.graded import GRADED
from annotate.judging.kinds import TaskKind
from annotate.judging.open import open_params, open_sql
from annotate.judging.sxs import SXS
from annotate.models import Campaign, Comparison

# Every judging page shows this, and through the ORM its four counts (answers, skips, held
# and open tasks) cost more CPU to compile than to run: one statement instead, each count a
# derived table of the same SQL the ORM wrote.
_PROGRESS = """
SELECT a.total, a.cant, a.gold, s.total, s.gold, h.n, o.n FROM (
    SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE a.cant_judge) AS cant,
        COUNT(*) FILTER (WHERE a.gold) AS gold
    FROM {answer} a INNER JOIN {task} t ON t.id = a.{afk}
    WHERE t.{scope} = %s AND a.rater_id = %s
) a, (
    SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE t.gold) AS gold
    FROM {skip} s INNER JOIN {task} t ON t.id = s.{afk}
    WHERE t.{scope} = %s AND s.rater_id = %s
) s, (
    SELECT COUNT(*) AS n FROM {lease} l INNER JOIN {task} t ON t.id = l.{fk}
    WHERE t.{scope} = %s AND NOT t.gold AND l.rater_id = %s AND l.expires_at > %s
) h, (
    SELECT COUNT(*) AS n {open}
) o
"""


@functools.cache
def _progress_sql(kind: TaskKind) -> str:
    return _PROGRESS.format(**kind.sql_names(), open=open_sql(kind))


def _counts(kind: TaskKind, scope: Any, rater: AbstractBaseUser, now: datetime) -> dict[str, int]:
    """Done (answers, can't-judge and skips) and left: tasks open to the rater plus those they
    hold a live lease on, as if honeypots were real work. A held gold task stands in for a
    real one, and each gold task done for one real task less left. So the total (done +
    left) moves exactly as without honeypots and never tells the rater that a query is one;
    near the end "left" runs short by the gold done."""
    at = connection.ops.adapt_datetimefield_value(now)
    params = [scope.pk, rater.pk] * 3 + [at, *open_params(kind, scope, rater, now)]
    with connection.cursor() as cursor:
        cursor.execute(_progress_sql(kind), params)
        total, cant, gold, skipped, skipped_gold, held, open_ = cursor.fetchone()
    left = max(0, open_ + held - gold - skipped_gold)
    done = total + skipped
    return {
        "done": done,
        "answered": total - cant,
        "cant_judge": cant,
        "skipped": skipped,
        "left": left,
        "assigned": done + left,
    }


def rater_progress(*, rater: AbstractBaseUser, campaign: Campaign) -> dict[str, int]:
    """Done (grades and skips) and what is left that this rater could still take."""
    counts = _counts(GRADED, campaign, rater, timezone.now())
    return {
        "done": counts["done"],
        "graded": counts["answered"],
        "cant_judge": counts["cant_judge"],
        "skipped": counts["skipped"],
        "left": counts["left"],
        "assigned": counts["assigned"],
    }


def rater_sxs_progress(*, rater: AbstractBaseUser, comparison: Comparison, now: datetime) -> dict:
    """The rater's own verdicts (can't-judge included) and skips, and what is left that they
    could still take."""
    counts = _counts(SXS, comparison, rater, now)
    return {
        "done": counts["done"],
        "verdicts": counts["answered"],
        "cant_judge": counts["cant_judge"],
        "skipped": counts["skipped"],
        "left": counts["left"],
        "assigned": counts["assigned"],
    }
