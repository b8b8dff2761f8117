"""Reads behind side-by-side judging: who may see a comparison, which tasks are open, and the
two lists of a task as a rater may see them.

Blindness lives here, as for graded judging (selectors_judge.py): a task is described to a rater
by its id, the query's text and intent, and per side the titles, URLs and snippets in the run
order. Which side is the candidate, system and run names, ranks and scores are never put in a
rater's payload.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import Q
from django.http import Http404

from annotate.inputs import clamp
from annotate.judging import handles
from annotate.models import (
    Comparison,
    ComparisonUnit,
    Document,
    Run,
    Side,
    SxsTask,
    TaskLease,
    TaskSkip,
    Verdict,
    VerdictValue,
)
from annotate.ranking import run_top_k_cached
from annotate.selectors import User, campaign_managed_by
from annotate.selectors_judge import Card, campaign_rated_by, document_shown, known_stub
from config.db import fetch_instances, hot_cursor

CHOICES = ("left", "same", "right")
STRENGTH_NAMES = {1: "slightly", 2: "clearly", 3: "much"}


_COMPARISON = "SELECT {columns} FROM annotate_comparison t WHERE t.campaign_id = %s AND t.id = %s"
_RUNS = "SELECT {columns} FROM annotate_run t WHERE t.id IN (%s, %s)"


def comparison_rated_by(user: User, slug: str, comparison_id: int) -> Comparison:
    """The comparison if the user is a rater of its campaign; 404 for anyone else.

    Every verdict asks this first, so it reads with hot statements (config/db.py): compiling
    the ORM's query with its joins cost 1.8 ms a verdict, running it 0.1. The runs come too
    (the lists are read from them); their systems do not (a rater's pages never name them)."""
    campaign = campaign_rated_by(user, slug)
    in_range = isinstance(comparison_id, int) and 0 < comparison_id < 2**63  # SQLite overflows
    found = in_range and fetch_instances(Comparison, _COMPARISON, [campaign.pk, comparison_id])
    if not found:
        raise Http404("No such comparison")
    comparison = found[0]
    runs = {
        run.pk: run
        for run in fetch_instances(Run, _RUNS, [comparison.baseline_id, comparison.candidate_id])
    }
    comparison._state.fields_cache.update(
        baseline=runs[comparison.baseline_id], candidate=runs[comparison.candidate_id]
    )
    comparison.campaign = campaign  # carries the check: the services need not ask again
    return comparison


def comparison_managed_by(user: User, slug: str, comparison_id: int) -> Comparison:
    """The comparison if the user manages its campaign; 404 for anyone else."""
    campaign = campaign_managed_by(user, slug)
    return _comparison_of(campaign, comparison_id)


def _comparison_of(campaign, comparison_id: int) -> Comparison:
    comparison = (
        Comparison.objects.filter(campaign=campaign, pk=comparison_id)
        .select_related("campaign", "baseline__system", "candidate__system")
        .first()
    )
    if comparison is None:
        raise Http404("No such comparison")
    return comparison


_RATER_LABEL = "SELECT COUNT(*) FROM annotate_comparison WHERE campaign_id = %s AND id <= %s"


def rater_label(comparison: Comparison) -> str:
    """How a rater's pages name a comparison. Never its name: managers name comparisons after
    the systems ("prod vs bert"), and that would tell the rater who is who."""
    # Hot statements here and below: every side-by-side page asks, and the ORM's queries cost
    # more to compile than to run.
    with hot_cursor() as cursor:
        cursor.execute(_RATER_LABEL, [comparison.campaign_id, comparison.pk])
        (number,) = cursor.fetchone()
    return f"Side-by-side {number}"


# Mirrored duplicates and gold tasks are no work the comparison needs (#18). Verdicts on gold
# and on mirrored duplicates count here as real ones (raters see this figure, and one that did
# not move it would tell them the task was a honeypot or a mirror); neither kind of task needs
# any.
_COMPARISON_PROGRESS = """
SELECT t.rated, t.identical, v.counted FROM (
    SELECT COUNT(*) FILTER (WHERE NOT t.gold AND NOT t.identical) AS rated,
        COUNT(*) FILTER (WHERE t.identical) AS identical
    FROM annotate_sxstask t WHERE t.comparison_id = %s AND t.mirror_of_id IS NULL
) t, (
    SELECT COUNT(*) AS counted FROM annotate_verdict v
    INNER JOIN annotate_sxstask t ON t.id = v.task_id
    WHERE t.comparison_id = %s AND NOT v.cant_judge
) v
"""


def comparison_progress(comparison: Comparison) -> dict[str, int]:
    """Verdicts given out of the verdicts the comparison needs (identical tasks need none)."""
    with connection.cursor() as cursor:
        cursor.execute(_COMPARISON_PROGRESS, [comparison.pk, comparison.pk])
        rated, identical, counted = cursor.fetchone()
    needed = rated * comparison.raters_per_task
    return {"counted": min(counted, needed), "needed": needed, "identical": identical}


def median_answer_seconds(campaign) -> float | None:
    """Median seconds per side-by-side answer in the campaign (None before any timed one)."""
    timed = Verdict.objects.filter(
        task__comparison__campaign=campaign, seconds__isnull=False
    ).order_by("seconds")
    n = timed.count()
    if not n:
        return None
    middle = list(timed.values_list("seconds", flat=True)[(n - 1) // 2 : n // 2 + 1])
    return float(sum(middle) / len(middle))


# ---- What a rater sees ------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskLists:
    """A task's two lists as document ids in the run order (at most `depth` each)."""

    baseline: list[int]
    candidate: list[int]


def task_lists(comparison: Comparison, tasks: list[SxsTask]) -> dict[int, TaskLists]:
    """{task id: its baseline and candidate documents}, from THE run order (ranking.py).

    A list task shows each run's top `depth`; a per-position task shows the document each run
    has at that rank (none when the run's list is shorter).
    """
    if not tasks:
        return {}
    query_ids = sorted({task.query_id for task in tasks})
    empty = np.zeros(0, dtype=np.int64)
    base = run_top_k_cached(comparison.baseline, comparison.depth, query_ids)
    cand = run_top_k_cached(comparison.candidate, comparison.depth, query_ids)
    out = {}
    for task in tasks:
        b = base.get(task.query_id, empty).tolist()
        c = cand.get(task.query_id, empty).tolist()
        if comparison.unit == ComparisonUnit.POSITION and task.position:
            i = task.position - 1
            b, c = b[i : i + 1], c[i : i + 1]
        out[task.pk] = TaskLists(baseline=b, candidate=c)
    return out


def _documents(ids: set[int], card: Card) -> dict[int, Document]:
    fields = (
        ("title", "url", "snippet", "extra") if card.reads_extra else ("title", "url", "snippet")
    )
    # Unordered: a dict by id either way, and the model's ordering joined the campaign.
    return Document.objects.only(*fields).order_by().in_bulk(ids)


def _shown(doc: Document, card: Card, pair: int, twin: int) -> dict:
    return {
        **document_shown(doc, card),
        # The same document on the other side: both get the same pair number (>0), and `twin`
        # is where it is shown there (1-based), so a moved result is seen at a glance.
        "pair": pair,
        "twin": twin,
    }


def task_payloads(
    comparison: Comparison,
    held: list[tuple[SxsTask, str]],
    rater: AbstractBaseUser,
    known: frozenset[str] = frozenset(),
) -> list[dict]:
    """What the rater's screen needs for each (task, candidate side), in order, and nothing
    else: Left and Right are filled from the recorded side; the task is named by the rater's
    handle, never its id, and its position is not said (#24). A task whose handle is in
    `known` (the page has it already) is sent as its handle alone (see known_stub)."""
    named = [(handles.handle_for(rater.pk, handles.SXS, t.pk), t, side) for t, side in held]
    wanted = [task for handle, task, _ in named if handle not in known]
    lists = task_lists(comparison, wanted)
    card = Card.of(comparison.campaign)
    ids = {d for tl in lists.values() for d in (*tl.baseline, *tl.candidate)}
    docs = _documents(ids, card) if ids else {}
    out = []
    for handle, task, candidate_side in named:
        if handle in known:
            out.append(known_stub(handle))
            continue
        tl = lists[task.pk]
        left, right = (
            (tl.candidate, tl.baseline)
            if candidate_side == Side.LEFT
            else (tl.baseline, tl.candidate)
        )
        place_left = {d: i for i, d in enumerate(left, start=1)}
        place_right = {d: i for i, d in enumerate(right, start=1)}
        pairs = {d: i for i, d in enumerate((d for d in left if d in place_right), start=1)}
        out.append(
            {
                "id": handle,
                "query": clamp(task.query.text, "query_text"),
                "description": clamp(task.query.description, "intent"),
                "left": [
                    _shown(docs[d], card, pairs.get(d, 0), place_right.get(d, 0)) for d in left
                ],
                "right": [
                    _shown(docs[d], card, pairs.get(d, 0), place_left.get(d, 0)) for d in right
                ],
            }
        )
    return out


def chosen_side(value: str, candidate_side: str) -> str:
    """The side the rater preferred ("left", "right" or "same") from a stored verdict: what a
    rater may be told about their own answer (Good/Bad would give the sides away); a
    can't-judge (no value) is "cant_judge"."""
    if not value:
        return "cant_judge"
    if value == VerdictValue.SAME:
        return "same"
    picked_candidate = value == VerdictValue.GOOD
    on_left = candidate_side == Side.LEFT
    return "left" if picked_candidate == on_left else "right"


def task_seen_by(*, comparison: Comparison, rater: AbstractBaseUser, task_id: int) -> SxsTask:
    """A task the rater may look at: one they hold, answered or skipped. 404 otherwise."""
    mine = Q(leases__rater=rater) | Q(verdicts__rater=rater) | Q(skips__rater=rater)
    task = (
        SxsTask.objects.filter(mine, comparison=comparison, pk=task_id, identical=False)
        .select_related("query")
        .first()
    )
    if task is None:
        raise Http404("No such task")
    return task


def side_for(*, rater: AbstractBaseUser, task: SxsTask) -> str | None:
    """Where the candidate is for this rater on this task: from their verdict, else their lease."""
    side = (
        Verdict.objects.filter(task=task, rater=rater).values_list("candidate_side", flat=True)
    ).first()
    if side is None:
        side = (
            TaskLease.objects.filter(task=task, rater=rater).values_list(
                "candidate_side", flat=True
            )
        ).first()
    return side


_LAST_VERDICT = """
SELECT v.task_id FROM annotate_verdict v INNER JOIN annotate_sxstask t ON t.id = v.task_id
WHERE v.rater_id = %s AND t.comparison_id = %s ORDER BY v.created_at DESC, v.id DESC LIMIT 1
"""


def last_verdict_task_id(*, comparison: Comparison, rater: AbstractBaseUser) -> int | None:
    """The task the rater answered last: where Back goes without JavaScript."""
    with connection.cursor() as cursor:
        cursor.execute(_LAST_VERDICT, [rater.pk, comparison.pk])
        row = cursor.fetchone()
    return row[0] if row else None


def rater_comparisons(user: User) -> list[Comparison]:
    """Comparisons of the campaigns the user rates, with work in them for raters."""
    from annotate.models import Role
    from annotate.selectors import campaigns_for

    return list(
        Comparison.objects.filter(campaign__in=campaigns_for(user, role=Role.RATER))
        .select_related("campaign")
        .order_by("campaign__name", "pk")
    )


def rater_sxs_history(*, comparison: Comparison, rater: AbstractBaseUser) -> dict:
    """The rater's own answers in a comparison, latest first (each with its earlier values and
    the side they chose as they saw it, never Good or Bad), and their skips."""
    verdicts = list(
        Verdict.objects.filter(task__comparison=comparison, rater=rater)
        .select_related("task__query")
        .prefetch_related("history")
        .order_by("-changed_at", "-pk")
    )
    for verdict in verdicts:
        verdict.chosen = chosen_side(verdict.value, verdict.candidate_side)
        for old in verdict.history.all():
            old.chosen = chosen_side(old.value, verdict.candidate_side)
    skips = list(
        TaskSkip.objects.filter(task__comparison=comparison, rater=rater)
        .select_related("task__query")
        .order_by("-created_at", "-pk")
    )
    return {"verdicts": verdicts, "skips": skips}
