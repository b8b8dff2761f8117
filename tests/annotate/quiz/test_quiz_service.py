"""The qualification quiz's service: drawing, disjointness from the honeypots, the pass mark,
attempts and grants, and the gate on real work (leases, answers, skips) for both kinds."""

from __future__ import annotations

import pytest

from annotate.judging.graded import GRADED, GradeRefused, grade_submit
from annotate.judging.honeypots import honeypot_query
from annotate.judging.leasing import held_or_next
from annotate.judging.sxs import SXS, VerdictRefused
from annotate.models import (
    Grade,
    PoolItem,
    QuizAnswer,
    QuizAttempt,
    Verdict,
)
from annotate.services.quiz import (
    QuizRefused,
    candidate_side,
    next_position,
    quiz_answer,
    quiz_grant,
    quiz_settings_set,
    quiz_start,
    quiz_status,
)
from tests.annotate.quiz.helpers import quiz_campaign, quiz_comparison, require_quiz


def _answer_all(campaign, rater, attempt, good, bad, right: int) -> None:
    """Answer the attempt's questions, the first `right` of them right (Good), the rest Bad."""
    for position in range(attempt.total):
        label = good if position < right else bad
        quiz_answer(scope=campaign, rater=rater, position=position, choice=label.pk, seconds=3)


def test_draw_takes_n_quiz_gold_at_random_never_honeypots(personas):
    campaign, quiz, honey, real, raters, good, bad = quiz_campaign(
        personas.campaign, quiz_queries=4, docs=4
    )
    require_quiz(campaign, items=10, attempts=20)
    quiz_ids = {item.pk for item in quiz}
    draws = []
    for _ in range(6):
        attempt = quiz_start(campaign, raters[0])
        assert len(attempt.drawn) == 10 == len(set(attempt.drawn))
        assert set(attempt.drawn) <= quiz_ids  # never honeypot gold, never real work
        draws.append(tuple(attempt.drawn))
        _answer_all(campaign, raters[0], attempt, good, bad, right=0)
    # 16 quiz items, 10 drawn in order: six equal draws would be a broken draw.
    assert len(set(draws)) > 1
    assert {pk for draw in draws for pk in draw} - quiz_ids == set()


def test_fewer_quiz_gold_than_n_draws_what_there_is_and_none_refuses(personas):
    campaign, quiz, *_rest = quiz_campaign(personas.campaign, quiz_queries=1, docs=3)
    require_quiz(campaign, items=10)
    attempt = quiz_start(campaign, _rest[2][0])
    assert sorted(attempt.drawn) == sorted(item.pk for item in quiz)
    other = personas.other_campaign  # no quiz gold at all
    with pytest.raises(QuizRefused):
        quiz_start(other, personas.other_rater)
    assert not QuizAttempt.objects.filter(campaign=other).exists()


def test_honeypots_never_serve_quiz_gold(personas):
    """A query all of quiz gold is no honeypot; a query mixing quiz and honeypot gold is none
    either. Only the all-honeypot query is ever drawn."""
    campaign, quiz, honey, real, raters, good, bad = quiz_campaign(
        personas.campaign, quiz_queries=3, honeypot_queries=1
    )
    honey_query = honey[0].query_id
    for _ in range(20):
        assert honeypot_query(GRADED, scope=campaign, rater=raters[0]) == honey_query
    # One item of the honeypot query turned quiz gold: the query is a honeypot no more.
    from annotate.services.gold import gold_item_set

    gold_item_set(
        campaign=campaign, manager=None, item_id=honey[0].pk, label_id=good.pk, purpose="quiz"
    )
    assert honeypot_query(GRADED, scope=campaign, rater=raters[0]) is None
    gold_item_set(campaign=campaign, manager=None, item_id=honey[0].pk, label_id=bad.pk)
    assert honeypot_query(GRADED, scope=campaign, rater=raters[0]) == honey_query
    # Without honeypot gold, nothing is a honeypot, though quiz gold abounds.
    from annotate.services.gold import gold_item_clear

    for item in honey:
        gold_item_clear(campaign=campaign, item_id=item.pk)
    assert honeypot_query(GRADED, scope=campaign, rater=raters[0]) is None


def test_real_queue_never_serves_quiz_gold(personas):
    campaign, quiz, honey, real, raters, good, bad = quiz_campaign(personas.campaign)
    campaign.honeypot_share = 1.0
    campaign.save(update_fields=["honeypot_share"])
    quiz_ids = {item.pk for item in quiz}
    served: set[int] = set()
    for rater in raters:
        while True:
            held = held_or_next(GRADED, scope=campaign, rater=rater)
            if not held:
                break
            for item in held:
                served.add(item.pk)
                grade_submit(rater=rater, campaign=campaign, item_id=item.pk, label_id=good.pk)
    assert served and not served & quiz_ids
    assert {item.pk for item in honey} <= served  # the honeypot did reach them


@pytest.mark.parametrize(("right", "passed"), [(8, True), (7, False), (10, True), (0, False)])
def test_pass_mark_is_inclusive(personas, right, passed):
    campaign, quiz, honey, real, raters, good, bad = quiz_campaign(personas.campaign)
    require_quiz(campaign, items=10, pass_percent=80)
    attempt = quiz_start(campaign, raters[0])
    _answer_all(campaign, raters[0], attempt, good, bad, right=right)
    attempt.refresh_from_db()
    assert (attempt.correct, attempt.passed) == (right, passed)
    assert attempt.finished_at is not None
    answers = QuizAnswer.objects.filter(attempt=attempt)
    assert answers.count() == 10 and answers.filter(correct=True).count() == right
    assert all(a.seconds == 3 for a in answers)


def test_any_accepted_label_counts_right(personas):
    campaign, quiz, honey, real, raters, good, bad = quiz_campaign(personas.campaign)
    fair = campaign.labels.get(name="Fair")
    from annotate.services.gold import gold_item_set

    for item in quiz:  # Good or Fair accepted
        gold_item_set(
            campaign=campaign,
            manager=None,
            item_id=item.pk,
            label_id=good.pk,
            accepted=[fair.pk],
            purpose="quiz",
        )
    require_quiz(campaign, items=2, pass_percent=100)
    attempt = quiz_start(campaign, raters[0])
    quiz_answer(scope=campaign, rater=raters[0], position=0, choice=fair.pk)
    quiz_answer(scope=campaign, rater=raters[0], position=1, choice=good.pk)
    attempt.refresh_from_db()
    assert attempt.passed is True


def test_attempts_run_out_and_a_grant_adds_one(personas):
    campaign, quiz, honey, real, raters, good, bad = quiz_campaign(personas.campaign)
    require_quiz(campaign, items=3, attempts=2)
    rater = raters[0]
    for _ in range(2):
        _answer_all(campaign, rater, quiz_start(campaign, rater), good, bad, right=0)
    status = quiz_status(campaign, rater)
    assert (status.used, status.allowed, status.left, status.passed) == (2, 2, 0, False)
    with pytest.raises(QuizRefused) as refused:
        quiz_start(campaign, rater)
    assert refused.value.status == 403
    assert QuizAttempt.objects.filter(rater=rater).count() == 2
    quiz_grant(scope=campaign, rater_id=rater.pk, manager=personas.manager)
    assert quiz_status(campaign, rater).left == 1
    _answer_all(campaign, rater, quiz_start(campaign, rater), good, bad, right=3)
    assert quiz_status(campaign, rater).passed
    with pytest.raises(QuizRefused):
        quiz_start(campaign, rater)  # passed already


def test_grant_refuses_a_non_rater(personas):
    campaign, *_rest = quiz_campaign(personas.campaign)
    with pytest.raises(QuizRefused):
        quiz_grant(scope=campaign, rater_id=personas.outsider.pk, manager=personas.manager)
    with pytest.raises(QuizRefused):
        quiz_grant(scope=campaign, rater_id="x", manager=personas.manager)


def test_an_answer_out_of_turn_or_off_the_scale_is_refused(personas):
    campaign, quiz, honey, real, raters, good, bad = quiz_campaign(personas.campaign)
    other_label = personas.other_campaign.labels.first()
    require_quiz(campaign, items=3)
    attempt = quiz_start(campaign, raters[0])
    with pytest.raises(QuizRefused):
        quiz_answer(scope=campaign, rater=raters[0], position=1, choice=good.pk)
    with pytest.raises(QuizRefused):
        quiz_answer(scope=campaign, rater=raters[0], position=0, choice=other_label.pk)
    with pytest.raises(QuizRefused):
        quiz_answer(scope=campaign, rater=raters[0], position=0, choice="nonsense")
    assert next_position(attempt) == 0 and not QuizAnswer.objects.exists()
    with pytest.raises(QuizRefused):  # another rater has no attempt under way
        quiz_answer(scope=campaign, rater=raters[1], position=0, choice=good.pk)


@pytest.mark.parametrize(
    "values",
    [
        {"items": 0},
        {"items": 101},
        {"pass_percent": 0},
        {"pass_percent": 101},
        {"attempts": 0},
        {"attempts": 51},
    ],
)
def test_settings_out_of_range_change_nothing(personas, values):
    campaign = personas.campaign
    settings = {"required": True, "items": 10, "pass_percent": 80, "attempts": 3, **values}
    with pytest.raises(QuizRefused):
        quiz_settings_set(scope=campaign, **settings)
    campaign.refresh_from_db()
    assert (campaign.quiz_required, campaign.quiz_items) == (False, 10)


def test_gate_holds_real_work_until_passed(personas):
    campaign, quiz, honey, real, raters, good, bad = quiz_campaign(personas.campaign)
    rater = raters[0]
    assert held_or_next(GRADED, scope=campaign, rater=rater)  # no quiz required: work flows
    other = raters[1]
    require_quiz(campaign, items=5)
    with pytest.raises(GradeRefused) as refused:
        held_or_next(GRADED, scope=campaign, rater=other)
    assert refused.value.status == 403
    assert refused.value.details["quiz"] == f"/judge/{campaign.slug}/quiz/"
    # Nor an answer or a skip of a real item.
    with pytest.raises(GradeRefused):
        grade_submit(rater=other, campaign=campaign, item_id=real[0].pk, label_id=good.pk)
    from annotate.judging.skips import skip_submit

    with pytest.raises(GradeRefused):
        skip_submit(GRADED, rater=other, scope=campaign, task_id=real[0].pk)
    # Failing does not open it; passing does, and the quiz left no Grade anywhere.
    _answer_all(campaign, other, quiz_start(campaign, other), good, bad, right=0)
    with pytest.raises(GradeRefused):
        held_or_next(GRADED, scope=campaign, rater=other)
    _answer_all(campaign, other, quiz_start(campaign, other), good, bad, right=5)
    assert not Grade.objects.filter(rater=other).exists()
    held = held_or_next(GRADED, scope=campaign, rater=other)
    assert held and not {item.pk for item in held} & {item.pk for item in quiz}
    grade_submit(rater=other, campaign=campaign, item_id=held[0].pk, label_id=good.pk)
    assert Grade.objects.filter(rater=other).count() == 1
    # The quiz's answers touched no counter of the quiz items.
    counted = PoolItem.objects.filter(pk__in=[i.pk for i in quiz]).values_list("counted", flat=True)
    assert set(counted) == {0}


def test_sxs_quiz_sides_and_gate(personas):
    campaign = personas.campaign
    from tests.annotate.queue_helpers import make_raters

    rater = make_raters(campaign, 1, prefix="s")[0]
    comparison, quiz_tasks, real_tasks = quiz_comparison(campaign, quiz_tasks=4)
    require_quiz(comparison, items=4, pass_percent=75)
    with pytest.raises(VerdictRefused) as refused:
        held_or_next(SXS, scope=comparison, rater=rater)
    assert refused.value.details["quiz"].endswith(f"/{comparison.pk}/quiz/")
    # The graded quiz is another scope: not required there, the campaign's work flows.
    assert not campaign.quiz_required
    attempt = quiz_start(comparison, rater)
    assert set(attempt.drawn) == {t.pk for t in quiz_tasks}
    # The accepted verdict is G (candidate better): the right choice is the candidate's side,
    # which differs per rater and task; answer three right and one "same".
    for position, task_id in enumerate(attempt.drawn):
        side = candidate_side(comparison, rater, task_id)
        choice = ("left" if side == "L" else "right") if position < 3 else "same"
        answer = quiz_answer(scope=comparison, rater=rater, position=position, choice=choice)
        assert answer.correct is (position < 3)
        assert answer.value == ("G" if position < 3 else "S")
    attempt.refresh_from_db()
    assert (attempt.correct, attempt.passed) == (3, True)
    assert not Verdict.objects.exists()
    held = held_or_next(SXS, scope=comparison, rater=rater)
    assert held and {t.pk for t in held} <= {t.pk for t in real_tasks}


def test_sxs_answer_must_be_a_side(personas):
    from tests.annotate.queue_helpers import make_raters

    rater = make_raters(personas.campaign, 1, prefix="s")[0]
    comparison, quiz_tasks, _real = quiz_comparison(personas.campaign, quiz_tasks=2)
    quiz_start(comparison, rater)
    for bad in ("G", "cant_judge", "", None):
        with pytest.raises(QuizRefused):
            quiz_answer(scope=comparison, rater=rater, position=0, choice=bad)
