"""The quiz pages: the gate on the judging pages and their JSON endpoints, the quiz itself in
training mode (a miss shows the accepted answer and the explanation), the result, and the
manager's results page with its grant; outsiders refused."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from annotate.models import Grade, QuizAnswer, QuizAttempt, QuizGrant
from annotate.services.quiz import quiz_start
from tests.annotate.quiz.helpers import EXPLANATION, quiz_campaign, quiz_comparison, require_quiz
from tests.annotate.sxs_helpers import sxs_url


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def setup(personas):
    campaign, quiz, honey, real, raters, good, bad = quiz_campaign(personas.campaign)
    require_quiz(campaign, items=3, pass_percent=60, attempts=2)
    return campaign, good, bad


def test_judging_page_and_json_send_the_rater_to_the_quiz(personas, setup):
    campaign, good, bad = setup
    client = _client(personas.rater)
    response = client.get(f"/judge/{campaign.slug}/", follow=True)
    assert response.redirect_chain[-1][0] == f"/judge/{campaign.slug}/quiz/"
    assert b"Pass the qualification quiz first" in response.content
    queue = client.get(f"/judge/{campaign.slug}/api/queue/")
    assert queue.status_code == 403
    assert queue.json()["quiz"] == f"/judge/{campaign.slug}/quiz/"
    answer = client.post(
        f"/judge/{campaign.slug}/api/judgments/",
        data={"item": "x", "action": "label", "label": good.pk},
        content_type="application/json",
    )
    assert answer.status_code == 403 and not Grade.objects.exists()


def _take(client, campaign, labels) -> list:
    """Answer the quiz's questions with these labels; the feedback pages, in order."""
    url = f"/judge/{campaign.slug}/quiz/"
    client.post(url, {"start": "1"})
    pages = []
    for position, label in enumerate(labels):
        page = client.get(url)
        assert page.status_code == 200 and b'data-mode="quiz"' in page.content
        assert f'name="position" value="{position}"'.encode() in page.content
        done = client.post(url, {"position": position, "label": label.pk, "shown_at": "1"})
        assert done.status_code == 302
        pages.append(client.get(done["Location"]).content.decode())
    return pages


def test_a_miss_shows_the_accepted_answer_and_why_a_hit_confirms(personas, setup):
    campaign, good, bad = setup
    client = _client(personas.rater)
    pages = _take(client, campaign, [bad, good, bad])
    assert 'data-correct="false"' in pages[0]
    assert "Accepted:" in pages[0] and EXPLANATION in pages[0] and "Good" in pages[0]
    assert 'data-correct="true"' in pages[1] and EXPLANATION not in pages[1]
    result = client.get(f"/judge/{campaign.slug}/quiz/").content.decode()
    assert "Not passed" in result and "1 of 3" in result
    assert re.search(r"You have 1 attempt left", result)
    # Still no real work; the answers are quiz answers only.
    assert client.get(f"/judge/{campaign.slug}/").status_code == 302
    assert QuizAnswer.objects.count() == 3 and not Grade.objects.exists()
    _take(client, campaign, [good, good, bad])
    result = client.get(f"/judge/{campaign.slug}/quiz/").content.decode()
    assert "Passed" in result
    work = client.get(f"/judge/{campaign.slug}/")
    assert work.status_code == 200 and b'id="grade-form"' in work.content
    assert client.get(f"/judge/{campaign.slug}/api/queue/").status_code == 200


def test_the_question_page_carries_nothing_of_the_gold(personas, setup):
    campaign, good, bad = setup
    client = _client(personas.rater)
    client.post(f"/judge/{campaign.slug}/quiz/", {"start": "1"})
    page = client.get(f"/judge/{campaign.slug}/quiz/").content.decode()
    assert EXPLANATION not in page and "gold" not in page.lower()
    # The form names the question by its place in the attempt, not the item.
    assert 'name="item"' not in page and 'name="position" value="0"' in page


def test_no_attempts_left_says_so_and_refuses(personas, setup):
    campaign, good, bad = setup
    client = _client(personas.rater)
    for _ in range(2):
        _take(client, campaign, [bad, bad, bad])
    page = client.get(f"/judge/{campaign.slug}/quiz/").content.decode()
    assert "You have no attempts left" in page and 'id="quiz-start"' not in page
    refused = client.post(f"/judge/{campaign.slug}/quiz/", {"start": "1"})
    assert refused.status_code == 403 and QuizAttempt.objects.count() == 2


def test_bad_answers_are_a_4xx_and_change_nothing(personas, setup):
    campaign, good, bad = setup
    client = _client(personas.rater)
    url = f"/judge/{campaign.slug}/quiz/"
    assert client.post(url, {"position": 0, "label": good.pk}).status_code == 409  # no attempt
    client.post(url, {"start": "1"})
    for body in ({"position": 5, "label": good.pk}, {"position": 0, "label": "x"}, {}):
        assert client.post(url, body).status_code in (400, 409)
    assert not QuizAnswer.objects.exists()


def test_outsiders_get_no_quiz(personas, setup):
    campaign, good, bad = setup
    for user in (personas.other_rater, personas.outsider, personas.manager):
        assert _client(user).get(f"/judge/{campaign.slug}/quiz/").status_code == 404
    assert Client().get(f"/judge/{campaign.slug}/quiz/").status_code == 302  # to sign in


def test_sxs_quiz_page_and_gate(personas):
    comparison, quiz_tasks, _real = quiz_comparison(personas.campaign, quiz_tasks=2)
    require_quiz(comparison, items=2)
    client = _client(personas.rater)
    response = client.get(sxs_url(comparison))
    assert response.status_code == 302 and response["Location"].endswith("/quiz/")
    queue = client.get(sxs_url(comparison, "sxs_api_queue"))
    assert queue.status_code == 403 and queue.json()["quiz"] == sxs_url(comparison, "sxs_quiz")
    url = sxs_url(comparison, "sxs_quiz")
    client.post(url, {"start": "1"})
    page = client.get(url).content.decode()
    assert 'data-mode="quiz"' in page and 'id="choose-left"' in page
    for name in ("PRODSYSTEM", "BERTSYSTEM", "RUNBASE", "RUNCAND", "candidate", "baseline"):
        assert name not in page
    client.post(url, {"position": 0, "chosen": "same"})  # gold is G: never right
    feedback = client.get(url + "?feedback=1").content.decode()
    assert 'data-correct="false"' in feedback
    assert ("Left better" in feedback) or ("Right better" in feedback)
    # Which side is which shows only through the manager's own explanation.
    assert "The candidate&#x27;s first result answers it." in feedback
    rest = re.sub(r'<p id="quiz-explanation">.*?</p>', "", feedback, flags=re.S)
    for name in ("PRODSYSTEM", "BERTSYSTEM", "candidate", "baseline", ">G<", ">B<"):
        assert name not in rest


def test_manager_sees_results_and_grants_an_attempt(personas, setup):
    campaign, good, bad = setup
    rater_client = _client(personas.rater)
    for _ in range(2):
        _take(rater_client, campaign, [bad, bad, good])
    manager = _client(personas.manager)
    raters_page = manager.get(f"/campaigns/{campaign.slug}/raters/").content.decode()
    assert f"/campaigns/{campaign.slug}/quiz/" in raters_page
    page = manager.get(f"/campaigns/{campaign.slug}/quiz/").content.decode()
    assert 'data-rater="rater"' in page and "1/3 (33%)" in page and "Not passed" in page
    grant = {"rater": personas.rater.pk}
    for outsider in (personas.other_manager, personas.rater, personas.outsider):
        client = _client(outsider)
        assert client.get(f"/campaigns/{campaign.slug}/quiz/").status_code == 404
        assert client.post(f"/campaigns/{campaign.slug}/quiz/grant/", grant).status_code == 404
        body = {"quiz_items": 5, "quiz_pass_percent": 50, "quiz_attempts": 9}
        assert client.post(f"/campaigns/{campaign.slug}/quiz/settings/", body).status_code == 404
    anonymous = Client().post(f"/campaigns/{campaign.slug}/quiz/grant/", grant)
    assert anonymous.status_code == 302 and not QuizGrant.objects.exists()
    assert manager.post(f"/campaigns/{campaign.slug}/quiz/grant/", grant).status_code == 302
    assert QuizGrant.objects.filter(rater=personas.rater).count() == 1
    assert quiz_start(campaign, personas.rater).finished_at is None  # a third attempt


def test_manager_changes_settings_and_bad_values_change_nothing(personas, setup):
    campaign, good, bad = setup
    manager = _client(personas.manager)
    url = f"/campaigns/{campaign.slug}/quiz/settings/"
    bad_body = {"quiz_required": "on", "quiz_items": 0, "quiz_pass_percent": 80, "quiz_attempts": 3}
    assert manager.post(url, bad_body).status_code == 400
    campaign.refresh_from_db()
    assert campaign.quiz_items == 3
    ok = {"quiz_items": 7, "quiz_pass_percent": 90, "quiz_attempts": 4}  # unticked: not required
    assert manager.post(url, ok).status_code == 302
    campaign.refresh_from_db()
    assert (campaign.quiz_required, campaign.quiz_items, campaign.quiz_attempts) == (False, 7, 4)
    comparison, *_ = quiz_comparison(campaign)
    assert (
        manager.post(url, {**ok, "quiz_required": "on", "comparison": comparison.pk}).status_code
        == 302
    )
    comparison.refresh_from_db()
    assert comparison.quiz_required and comparison.quiz_pass_percent == 90
    other = quiz_comparison(personas.other_campaign)[0]
    assert manager.post(url, {**ok, "comparison": other.pk}).status_code == 404
    # Required with no quiz gold: the page warns that raters are stuck.
    assert (
        'id="quiz-no-gold-graded"'
        not in manager.get(f"/campaigns/{campaign.slug}/quiz/").content.decode()
    )
    from annotate.models import GoldTask

    GoldTask.objects.filter(task__comparison=comparison).delete()  # no quiz gold left
    page = manager.get(f"/campaigns/{campaign.slug}/quiz/").content.decode()
    assert f'id="quiz-no-gold-c{comparison.pk}"' in page
    settings_page = manager.get(f"/campaigns/{campaign.slug}/settings/").content.decode()
    assert "Not required for graded work." in settings_page


def test_sxs_quiz_sides_follow_each_raters_shuffle(personas):
    """A quiz task shows the candidate on the side the comparison's secret gives this rater
    and task, as any task does; over 16 raters both sides occur (all on one side: 1 in 2**15)."""
    from annotate.services.quiz import candidate_side
    from tests.annotate.queue_helpers import make_raters

    comparison, quiz_tasks, _real = quiz_comparison(personas.campaign, quiz_tasks=1)
    (task,) = quiz_tasks
    seen = set()
    for rater in make_raters(personas.campaign, 16, prefix="side"):
        client = _client(rater)
        url = sxs_url(comparison, "sxs_quiz")
        client.post(url, {"start": "1"})
        page = client.get(url).content.decode()
        left = page[page.index('id="side-left"') : page.index('id="side-right"')]
        side = candidate_side(comparison, rater, task.pk)
        # distinct_lists: the baseline's documents are "-a", the candidate's "-b".
        assert ("-b0" in left) == (side == "L") and ("-a0" in left) == (side == "R")
        seen.add(side)
    assert seen == {"L", "R"}
