"""The quiz through the API: a manager reads and changes a scope's quiz settings, sees each
rater's results and grants an attempt; everyone else is refused and changes nothing. A rater
who has not passed gets no queue (403 naming the quiz), then does once passed."""

from __future__ import annotations

from annotate.models import QuizGrant
from annotate.services.quiz import quiz_answer, quiz_start
from tests.annotate.quiz.helpers import quiz_campaign, quiz_comparison, require_quiz
from tests.api.conftest import api_client_for
from tests.conftest import PERSONA_NAMES

NOT_MANAGER = [name for name in PERSONA_NAMES if name != "manager"]


def _expected(name: str) -> int:
    return 401 if name == "anonymous" else 404


def test_manager_reads_and_patches_quiz_settings_no_one_else_can(personas):
    campaign, *_ = quiz_campaign(personas.campaign)
    url = "/api/v1/campaigns/campaign-a/quiz/"
    for name in NOT_MANAGER:
        client = api_client_for(personas, name)
        assert client.get(url).status_code == _expected(name)
        patched = client.patch(url, {"required": True, "items": 4}, format="json")
        assert patched.status_code == _expected(name)
    campaign.refresh_from_db()
    assert (campaign.quiz_required, campaign.quiz_items) == (False, 10)
    manager = api_client_for(personas, "manager")
    body = manager.get(url).json()
    assert body["required"] is False and body["items"] == 10 and body["pass_percent"] == 80
    assert body["attempts"] == 3 and body["gold"] == 12
    response = manager.patch(url, {"required": True, "items": 4, "attempts": 5}, format="json")
    assert response.status_code == 200, response.json()
    campaign.refresh_from_db()
    assert (campaign.quiz_required, campaign.quiz_items, campaign.quiz_attempts) == (True, 4, 5)
    assert campaign.quiz_pass_percent == 80  # untouched
    # A form-encoded PATCH that leaves `required` out keeps it.
    assert manager.patch(url, {"items": 4}).status_code == 200
    campaign.refresh_from_db()
    assert campaign.quiz_required is True
    for bad in ({"items": 0}, {"pass_percent": 101}, {"attempts": "many"}):
        refused = manager.patch(url, bad, format="json")
        assert refused.status_code == 400 and refused.json()["detail"]
    campaign.refresh_from_db()
    assert (campaign.quiz_items, campaign.quiz_pass_percent, campaign.quiz_attempts) == (4, 80, 5)


def test_rater_queue_is_refused_until_the_quiz_is_passed(personas):
    campaign, quiz, honey, real, raters, good, bad = quiz_campaign(personas.campaign)
    require_quiz(campaign, items=2, pass_percent=100)
    rater = api_client_for(personas, "rater")
    refused = rater.get("/api/v1/campaigns/campaign-a/queue/")
    assert refused.status_code == 403
    assert refused.json()["quiz"] == "/judge/campaign-a/quiz/" and refused.json()["detail"]
    attempt = quiz_start(campaign, personas.rater)
    for position in range(attempt.total):
        quiz_answer(scope=campaign, rater=personas.rater, position=position, choice=good.pk)
    queue = api_client_for(personas, "rater").get("/api/v1/campaigns/campaign-a/queue/")
    assert queue.status_code == 200 and queue.json()["items"]
    results = api_client_for(personas, "manager").get("/api/v1/campaigns/campaign-a/quiz/")
    (row,) = [r for r in results.json()["raters"] if r["rater"] == "rater"]
    assert row["passed"] is True and row["attempts"][0]["correct"] == 2


def test_grants_managers_only_and_only_to_raters(personas):
    campaign, *_ = quiz_campaign(personas.campaign)
    url = "/api/v1/campaigns/campaign-a/quiz/grants/"
    body = {"rater": personas.rater.pk}
    for name in NOT_MANAGER:
        assert api_client_for(personas, name).post(url, body, format="json").status_code == (
            _expected(name)
        )
    assert not QuizGrant.objects.exists()
    manager = api_client_for(personas, "manager")
    outsider = {"rater": personas.outsider.pk}
    assert manager.post(url, outsider, format="json").status_code == 404
    response = manager.post(url, body, format="json")
    assert response.status_code == 201
    (row,) = [r for r in response.json()["raters"] if r["rater"] == "rater"]
    assert row["allowed"] == 4 and row["left"] == 4


def test_comparison_quiz_settings_and_queue(personas):
    comparison, quiz_tasks, _real = quiz_comparison(personas.campaign, quiz_tasks=2)
    url = f"/api/v1/comparisons/{comparison.pk}/quiz/"
    for name in NOT_MANAGER:
        assert api_client_for(personas, name).get(url).status_code == _expected(name)
    manager = api_client_for(personas, "manager")
    assert manager.get(url).json()["gold"] == 2
    assert manager.patch(url, {"required": True}, format="json").status_code == 200
    queue = api_client_for(personas, "rater").get(f"/api/v1/comparisons/{comparison.pk}/queue/")
    assert queue.status_code == 403 and queue.json()["quiz"].endswith("/quiz/")
