"""A rater takes the qualification quiz in a real Chromium with the judging keys: fails it
once (and sees the accepted answer with the manager's explanation), passes on the second
attempt, then judges real work. The database holds the quiz's answers as QuizAnswers only
and the real work's as Grades."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.models import GoldPurpose, Grade, QuizAnswer, QuizAttempt
from annotate.selectors_judge import label_keys
from annotate.services.gold import gold_item_set
from tests.annotate.quiz.helpers import require_quiz
from tests.browser.session import log_in
from tests.browser.test_honeypots import QUERIES, _campaign
from tests.browser.test_judging import page_errors, shown_title

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WHY = "A climate guide gives the rainfall month by month."


def _answer(page, key: str, *, right: bool) -> None:
    expect(page.locator("#judge[data-mode=quiz][data-ready=true]")).to_be_visible()
    page.keyboard.press(key)
    verdict = page.locator("#quiz-verdict")
    expect(verdict).to_have_attribute("data-correct", "true" if right else "false")


def test_a_rater_fails_the_quiz_once_passes_then_judges(personas, live_server, page):
    campaign = personas.campaign
    items = _campaign(campaign)
    good = campaign.labels.get(name="Good")
    quiz_titles = QUERIES["q0"][1]
    for title in quiz_titles:  # q0 is the quiz: every document accepted as Good
        gold_item_set(
            campaign=campaign,
            manager=personas.manager,
            item_id=items[title].pk,
            label_id=good.pk,
            explanation=WHY,
            purpose=GoldPurpose.QUIZ,
        )
    require_quiz(campaign, items=3, pass_percent=100, attempts=3)
    errors = page_errors(page)
    log_in(page, live_server.url, "rater", home=False)
    page.goto(f"{live_server.url}/judge/campaign-a/")
    expect(page).to_have_url(f"{live_server.url}/judge/campaign-a/quiz/")
    expect(page.get_by_text("Pass the qualification quiz first")).to_be_visible()
    page.locator("#quiz-start").click()

    # First attempt: a miss (B), then two hits; the miss shows the answer and why.
    _answer(page, "b", right=False)
    expect(page.locator("#quiz-accepted")).to_contain_text("Good")
    expect(page.locator("#quiz-explanation")).to_have_text(WHY)
    page.keyboard.press("Enter")
    for _ in range(2):
        _answer(page, "g", right=True)
        expect(page.locator("#quiz-explanation")).to_have_count(0)
        page.keyboard.press("Enter")
    expect(page.locator("#quiz-result-title")).to_have_text("Not passed")
    expect(page.locator("#quiz-attempts")).to_contain_text("2 attempts left")

    # Second attempt: every answer right, by the number key this time.
    page.keyboard.press("Enter")  # "Try again" has the focus
    number = next(k.number for k in label_keys(campaign) if k.name == "Good")
    for _ in range(3):
        _answer(page, str(number), right=True)
        page.keyboard.press("Enter")
    expect(page.locator("#quiz-result-title")).to_have_text("Passed")
    page.locator("#quiz-to-work").click()

    # Real work now flows: judge everything left, by the keys.
    expect(page).to_have_url(f"{live_server.url}/judge/campaign-a/")
    real_titles = [t for t in items if t not in quiz_titles]
    given = {}
    for n in range(len(real_titles)):
        title = shown_title(page)
        assert title in real_titles
        key = "fb"[n % 2]  # a key pressed twice at once is a double tap, taken once
        page.keyboard.press(key)
        given[title] = {"f": "Fair", "b": "Bad"}[key]
        if n < len(real_titles) - 1:
            expect(page.locator("#doc-title")).not_to_have_text(title)
    expect(page.get_by_role("heading", name="All done")).to_be_visible()
    assert errors == []
    page.goto("about:blank")

    attempts = list(QuizAttempt.objects.order_by("started_at"))
    assert [(a.correct, a.passed) for a in attempts] == [(2, False), (3, True)]
    assert QuizAnswer.objects.count() == 6
    grades = Grade.objects.select_related("pool_item__document", "label")
    assert {g.pool_item.document.title: g.label.name for g in grades} == given
    assert sorted(given) == sorted(real_titles)
    assert not Grade.objects.filter(pool_item__document__title__in=quiz_titles).exists()


def test_side_by_side_quiz_by_the_arrow_keys(personas, live_server, page):
    """The side-by-side quiz takes the judging screen's keys: ↓ (about the same) misses a
    gold "candidate better" and shows why; the arrow to the candidate's side (which only the
    server knows) is right; passed, the rater's queue opens. No verdict is stored."""
    from annotate.models import Verdict
    from annotate.services.quiz import candidate_side
    from tests.annotate.quiz.helpers import quiz_comparison

    comparison, quiz_tasks, _real = quiz_comparison(personas.campaign, quiz_tasks=2)
    require_quiz(comparison, items=2, pass_percent=50)
    errors = page_errors(page)
    log_in(page, live_server.url, "rater", home=False)
    quiz_url = f"{live_server.url}/sxs/campaign-a/{comparison.pk}/quiz/"
    page.goto(f"{live_server.url}/sxs/campaign-a/{comparison.pk}/")
    expect(page).to_have_url(quiz_url)
    page.locator("#quiz-start").click()
    expect(page.locator("#sxs[data-mode=quiz][data-ready=true]")).to_be_visible()
    page.keyboard.press("ArrowDown")
    expect(page.locator("#quiz-verdict")).to_have_attribute("data-correct", "false")
    expect(page.locator("#quiz-explanation")).to_contain_text("first result answers it")
    page.keyboard.press("Enter")
    expect(page.locator("#sxs[data-mode=quiz][data-ready=true]")).to_be_visible()
    attempt = QuizAttempt.objects.get()
    side = candidate_side(comparison, personas.rater, attempt.drawn[1])
    page.keyboard.press("ArrowLeft" if side == "L" else "ArrowRight")
    expect(page.locator("#quiz-verdict")).to_have_attribute("data-correct", "true")
    page.keyboard.press("Enter")
    expect(page.locator("#quiz-result-title")).to_have_text("Passed")
    page.locator("#quiz-to-work").click()
    expect(page.locator("#sxs[data-mode=queue]")).to_be_visible()
    assert errors == []
    page.goto("about:blank")
    assert [a.correct for a in QuizAnswer.objects.order_by("position")] == [False, True]
    assert not Verdict.objects.exists()
