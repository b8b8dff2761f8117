"""The demo raters' work: grades with realistic disagreement, and side-by-side verdicts.

Each rater has an accuracy: with that probability they give the true grade, otherwise a
neighbouring one, so agreement between the two raters is high but not perfect. They work
query by query, as the queue hands out work, and leave the rest of the pool for the person
trying the demo. Verdicts follow the true quality difference of the two top 10s.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.contrib.auth.models import AbstractUser
from django.utils import timezone

from annotate import models as m

if TYPE_CHECKING:
    from annotate.demo.build import World
    from annotate.demo.data import DemoText

RATER1_QUERIES = slice(0, 18)  # of the shuffled queries: 60% for rater1
RATER2_QUERIES = slice(12, 24)  # 40% for rater2, six queries shared with rater1
ACCURACY = {"rater1": 0.84, "rater2": 0.78}
CANT_JUDGE = 0.025
VERDICT_SHARE = {"rater1": 0.85, "rater2": 0.65}


class Timeline:
    """A rater's working sessions: a timestamp per action, days in the past."""

    def __init__(self, rng: random.Random, start: datetime, per_session: int) -> None:
        self.rng, self.now, self.per_session, self.done = rng, start, per_session, 0

    def tick(self, seconds: float) -> datetime:
        self.done += 1
        if self.done % self.per_session == 0:
            self.break_for_the_day()
        self.now += timedelta(seconds=seconds + self.rng.uniform(1, 6))
        return self.now

    def break_for_the_day(self) -> None:
        """Resume the next morning, as people do."""
        tomorrow = timezone.localtime(self.now) + timedelta(days=1)
        self.now = tomorrow.replace(hour=9, minute=self.rng.randint(0, 50), second=0)


@dataclass
class _Rater:
    name: str
    user: AbstractUser
    timeline: Timeline


def judge(
    world: World,
    *,
    comparison: m.Comparison,
    raters: dict[str, AbstractUser],
    rng: random.Random,
) -> None:
    start = timezone.localtime() - timedelta(days=6)
    start = start.replace(hour=9, minute=12, second=0, microsecond=0)
    people = [
        _Rater(name, raters[name], Timeline(rng, start + timedelta(minutes=37 * i), 90))
        for i, name in enumerate(("rater1", "rater2"))
    ]
    _grades(world, people, rng)
    for person in people:
        person.timeline.break_for_the_day()
    _verdicts(world, comparison, people, rng)


def _observed(truth: int, accuracy: float, rng: random.Random) -> int:
    if rng.random() < accuracy:
        return truth
    if truth in (1, 3):
        return 2
    return rng.choice((1, 3))


def _grades(world: World, people: list[_Rater], rng: random.Random) -> None:
    labels = {int(label.grade): label for label in world.campaign.labels.all()}
    order = list(world.queries)
    rng.shuffle(order)
    items_by_query: dict[int, list[m.PoolItem]] = {}
    # Not by id: pool items are made in a random order (#24), and the demo is the same twice.
    items = m.PoolItem.objects.filter(campaign=world.campaign)
    for item in items.order_by("query_id", "document__external_id"):
        items_by_query.setdefault(item.query_id, []).append(item)

    grades, changes, skips = [], [], []
    # When each grade was given, by (item, rater): bulk_create overwrites the rows' own times.
    times: dict[tuple[int, int], datetime] = {}
    for person, share in zip(people, (RATER1_QUERIES, RATER2_QUERIES), strict=True):
        for query in order[share]:
            items = items_by_query[query.pk]
            rng.shuffle(items)  # raters see a query's documents in their own order
            for item in items:
                seconds = round(min(max(rng.lognormvariate(math.log(9), 0.55), 2.0), 120.0), 1)
                when = person.timeline.tick(seconds)
                if person.name == "rater1" and rng.random() < 0.01:
                    skips.append(m.Skip(pool_item=item, rater=person.user))
                    continue
                grade = m.Grade(pool_item=item, rater=person.user, seconds=seconds)
                times[(item.pk, person.user.pk)] = when
                if rng.random() < CANT_JUDGE:
                    grade.cant_judge = True
                    grade.comment = rng.choice(world.text.cant_judge_comments)
                else:
                    truth = world.truth[(item.query_id, item.document_id)]
                    value = _observed(truth, ACCURACY[person.name], rng)
                    grade.label = labels[value]
                    if rng.random() < 0.05:
                        grade.comment = rng.choice(world.text.comments[value])
                    if rng.random() < 0.04:
                        # Changed their mind: the first answer was a neighbouring grade.
                        first = labels[2] if value != 2 else labels[rng.choice((1, 3))]
                        given = when - timedelta(seconds=rng.uniform(20, 600))
                        changes.append((grade, first, given))
                grades.append(grade)

    m.Grade.objects.bulk_create(grades, batch_size=500)
    saved = {
        (g.pool_item_id, g.rater_id): g
        for g in m.Grade.objects.filter(pool_item__campaign=world.campaign)
    }
    _restamp(saved, times)
    m.GradeChange.objects.bulk_create(
        m.GradeChange(grade=saved[(g.pool_item_id, g.rater_id)], label=first, given_at=given)
        for g, first, given in changes
    )
    history = m.GradeChange.objects.filter(grade__pool_item__campaign=world.campaign)
    stamps = {g.pk: g.changed_at for g in saved.values()}
    for change in history:
        change.replaced_at = stamps[change.grade_id]
    m.GradeChange.objects.bulk_update(history, ["replaced_at"])
    m.Skip.objects.bulk_create(skips)


def _restamp(
    saved: dict[tuple[int, int], m.Grade | m.Verdict], stamps: dict[tuple[int, int], datetime]
) -> None:
    """Give bulk-created rows the times the rater worked at. bulk_create stamps auto_now
    fields with the current time; bulk_update leaves them alone, so it can set them."""
    for key, row in saved.items():
        row.created_at = row.changed_at = stamps[key]
    model = type(next(iter(saved.values())))
    model.objects.bulk_update(saved.values(), ["created_at", "changed_at"], batch_size=500)


def _dcg(grades: list[int]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(grades))


def _verdicts(
    world: World, comparison: m.Comparison, people: list[_Rater], rng: random.Random
) -> None:
    verdicts = []
    times: dict[tuple[int, int], datetime] = {}
    tasks = comparison.tasks.filter(identical=False).order_by("query__external_id")
    for task in tasks:
        base, cand = world.tops[task.query_id]
        gain = {d: world.truth[(task.query_id, d)] for d in base + cand}
        ideal = _dcg(sorted(gain.values(), reverse=True)[: len(base)])
        delta = (_dcg([gain[d] for d in cand]) - _dcg([gain[d] for d in base])) / ideal
        for person in people:
            if rng.random() >= VERDICT_SHARE[person.name]:
                continue
            seconds = round(min(max(rng.lognormvariate(math.log(35), 0.5), 5.0), 300.0), 1)
            verdict = m.Verdict(
                task=task,
                rater=person.user,
                value=_verdict_value(delta, rng),
                candidate_side=rng.choice((m.Side.LEFT, m.Side.RIGHT)),
                seconds=seconds,
            )
            times[(task.pk, person.user.pk)] = person.timeline.tick(seconds)
            if verdict.value != m.VerdictValue.SAME and rng.random() < 0.85:
                steps = 1 + (abs(delta) > 0.08) + (abs(delta) > 0.2)
                verdict.strength = min(3, max(1, steps + rng.choice((-1, 0, 0, 1))))
            if rng.random() < 0.35:
                verdict.reason = _reason(verdict, world.text, rng)
            verdicts.append(verdict)
    m.Verdict.objects.bulk_create(verdicts)
    saved = {
        (v.task_id, v.rater_id): v for v in m.Verdict.objects.filter(task__comparison=comparison)
    }
    _restamp(saved, times)


def _verdict_value(delta: float, rng: random.Random) -> str:
    """Good/Same/Bad for the candidate, leaning the way the true quality difference points."""
    if delta > 0.03:
        weights = (0.72, 0.2, 0.08)
    elif delta < -0.03:
        weights = (0.1, 0.2, 0.7)
    else:
        weights = (0.15, 0.7, 0.15)
    values = (m.VerdictValue.GOOD, m.VerdictValue.SAME, m.VerdictValue.BAD)
    return rng.choices(values, weights=weights)[0]


def _reason(verdict: m.Verdict, text: DemoText, rng: random.Random) -> str:
    if verdict.value == m.VerdictValue.SAME:
        return rng.choice(text.reasons_same)
    left, right = text.sides
    candidate = left if verdict.candidate_side == m.Side.LEFT else right
    other = right if candidate == left else left
    better, worse = (
        (candidate, other) if verdict.value == m.VerdictValue.GOOD else (other, candidate)
    )
    return rng.choice(text.reasons_better).format(better=better, worse=worse)
