"""The quiz against PostgreSQL with real concurrency: raters refused real work until they
pass, then leasing side by side with raters already qualified; every real item gets exactly
the grades it needs, quiz gold none; a double start makes one attempt."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from django.db import connection, connections

from annotate.judging.graded import GradeRefused, grade_submit, queue_items
from annotate.models import Grade, PoolItem, QuizAnswer, QuizAttempt
from annotate.services.quiz import quiz_answer, quiz_start
from tests.annotate.queue_helpers import make_raters
from tests.annotate.quiz.helpers import quiz_campaign, require_quiz

RATERS = 8
OVERLAP = 2

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _run(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)


def test_concurrent_raters_qualify_then_share_the_work(personas):
    assert connection.vendor == "postgresql"
    campaign, quiz, honey, real, _r, good, bad = quiz_campaign(
        personas.campaign, quiz_queries=2, honeypot_queries=0, real_queries=6, docs=3
    )
    campaign.overlap = OVERLAP
    campaign.save()
    require_quiz(campaign, items=4, pass_percent=75)
    raters = make_raters(campaign, RATERS, prefix="c")
    errors: list[BaseException] = []
    refused_first: Counter = Counter()
    start = threading.Barrier(RATERS)

    def work(rater) -> None:
        try:
            start.wait(timeout=30)
            try:
                queue_items(rater=rater, campaign=campaign)
            except GradeRefused as refusal:
                refused_first[refusal.status] += 1
            attempt = quiz_start(campaign, rater)
            for position in range(attempt.total):
                label = good if position else bad  # 3 of 4 right: passes at 75%
                quiz_answer(scope=campaign, rater=rater, position=position, choice=label.pk)
            while batch := queue_items(rater=rater, campaign=campaign):
                for item in batch:
                    grade_submit(rater=rater, campaign=campaign, item_id=item.pk, label_id=good.pk)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    _run([threading.Thread(target=work, args=(r,)) for r in raters])
    assert errors == []
    assert refused_first == Counter({403: RATERS})
    assert QuizAttempt.objects.filter(passed=True).count() == RATERS
    assert QuizAnswer.objects.count() == RATERS * 4
    per_item = Counter(Grade.objects.values_list("pool_item_id", flat=True))
    assert {item.pk: per_item[item.pk] for item in real} == {item.pk: OVERLAP for item in real}
    assert not Grade.objects.filter(pool_item__in=quiz).exists()
    counted = dict(
        PoolItem.objects.filter(pk__in=[i.pk for i in real]).values_list("pk", "counted")
    )
    assert set(counted.values()) == {OVERLAP}


def test_a_double_start_makes_one_attempt(personas):
    assert connection.vendor == "postgresql"
    campaign, *_rest = quiz_campaign(personas.campaign)
    require_quiz(campaign, items=3)
    rater = personas.rater
    made: list[int] = []
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def begin() -> None:
        try:
            start.wait(timeout=30)
            made.append(quiz_start(campaign, rater).pk)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    _run([threading.Thread(target=begin) for _ in range(4)])
    assert errors == []
    assert len(set(made)) == 1 and QuizAttempt.objects.count() == 1


def test_quiz_gold_drawn_meanwhile_is_not_turned_into_a_honeypot(personas):
    """A manager makes quiz gold a honeypot while a rater's attempt is drawing it: the change
    waits for the attempt and is then refused, as if it came after (#18)."""
    from django.db import transaction

    from annotate.models import GoldItem, GoldPurpose
    from annotate.services.gold import GoldRefused, gold_item_set

    assert connection.vendor == "postgresql"
    campaign, quiz, _honey, _real, raters, good, _bad = quiz_campaign(
        personas.campaign, quiz_queries=1, docs=2
    )
    require_quiz(campaign, items=2)
    outcome: list[BaseException | None] = []

    def turn(item_id: int) -> None:
        try:
            gold_item_set(
                campaign=campaign,
                manager=None,
                item_id=item_id,
                label_id=good.pk,
                purpose=GoldPurpose.HONEYPOT,
            )
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)
        finally:
            connections.close_all()

    with transaction.atomic():
        attempt = quiz_start(campaign, raters[0])
        manager = threading.Thread(target=turn, args=(attempt.drawn[0],))
        manager.start()
        # Until the manager's change waits on a lock (or, without one, has finished).
        with connection.cursor() as cursor:
            while manager.is_alive():
                # Within a transaction PostgreSQL keeps one snapshot of the activity view.
                cursor.execute("SELECT pg_stat_clear_snapshot()")
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND datname = current_database()"
                )
                if cursor.fetchone()[0]:
                    break
                time.sleep(0.01)
    manager.join(timeout=120)
    assert len(outcome) == 1 and isinstance(outcome[0], GoldRefused)
    assert GoldItem.objects.get(pool_item_id=attempt.drawn[0]).purpose == GoldPurpose.QUIZ
