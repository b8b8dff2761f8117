"""The quiz's gold and the honeypots stay disjoint (#18): gold a rater has met in the quiz
(answered, or drawn in an attempt under way) cannot become a honeypot, by the service, the
gold page (a form error, 400), the API (400) or gold from rulings; gold nobody met can."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotate.models import GoldItem, GoldPurpose, GoldTask
from annotate.services.adjudication import adjudication_set
from annotate.services.gold import (
    GoldRefused,
    gold_from_adjudications,
    gold_item_clear,
    gold_item_set,
    gold_task_set,
)
from annotate.services.quiz import quiz_answer, quiz_start
from tests.annotate.queue_helpers import make_raters
from tests.annotate.quiz.helpers import quiz_campaign, quiz_comparison, require_quiz
from tests.api.conftest import api_client_for

pytestmark = pytest.mark.django_db

SEEN = "seen this pair in the qualification quiz"


@pytest.fixture
def met(personas):
    """Four quiz items; a rater's attempt drew two, answered the first, and is under way.
    (campaign, answered item, drawn-not-answered item, undrawn items, Good)."""
    campaign, quiz, _honey, _real, raters, good, _bad = quiz_campaign(
        personas.campaign, quiz_queries=1, docs=4
    )
    require_quiz(campaign, items=2)
    attempt = quiz_start(campaign, raters[0])
    quiz_answer(scope=campaign, rater=raters[0], position=0, choice=good.pk, seconds=3)
    answered, drawn = attempt.drawn
    undrawn = [item for item in quiz if item.pk not in attempt.drawn]
    return campaign, answered, drawn, undrawn, good


def _as_honeypot(campaign, item_id, good):
    return gold_item_set(
        campaign=campaign, manager=None, item_id=item_id, label_id=good.pk, purpose="honeypot"
    )


def test_quiz_gold_a_rater_met_stays_quiz_gold(met):
    campaign, answered, drawn, undrawn, good = met
    for item_id in (answered, drawn):
        with pytest.raises(GoldRefused) as refused:
            _as_honeypot(campaign, item_id, good)
        assert SEEN in refused.value.message
        assert GoldItem.objects.get(pool_item_id=item_id).purpose == GoldPurpose.QUIZ
    campaign.refresh_from_db()
    assert campaign.honeypot_gold == 4  # the helper's honeypot query only
    # Unmarked and marked again is the same pair: still refused.
    gold_item_clear(campaign=campaign, item_id=answered)
    with pytest.raises(GoldRefused):
        _as_honeypot(campaign, answered, good)
    assert not GoldItem.objects.filter(pool_item_id=answered).exists()
    # Gold no rater met can change purpose.
    assert _as_honeypot(campaign, undrawn[0].pk, good).purpose == GoldPurpose.HONEYPOT


def test_gold_from_rulings_leaves_out_pairs_met_in_the_quiz(met, personas):
    campaign, answered, _drawn, _undrawn, good = met
    gold_item_clear(campaign=campaign, item_id=answered)
    adjudication_set(
        campaign=campaign, manager=personas.manager, item_id=answered, label_id=good.pk
    )
    assert gold_from_adjudications(campaign=campaign, manager=personas.manager) == 0
    assert not GoldItem.objects.filter(pool_item_id=answered).exists()
    client = personas.client_for("manager")
    url = reverse("annotate:gold_from_rulings", kwargs={"slug": campaign.slug})
    response = client.post(url, {"purpose": "honeypot"}, follow=True)
    assert "1 adjudicated pair stays real work" in response.content.decode()
    assert not GoldItem.objects.filter(pool_item_id=answered).exists()


def test_the_gold_page_says_why_it_refuses(met, personas):
    campaign, answered, *_rest, good = met
    item = GoldItem.objects.select_related("pool_item__query", "pool_item__document").get(
        pool_item_id=answered
    )
    form = {
        "query": item.pool_item.query.external_id,
        "document": item.pool_item.document.external_id,
        "label": good.pk,
        "purpose": "honeypot",
    }
    url = reverse("annotate:gold_mark", kwargs={"slug": campaign.slug})
    response = personas.client_for("manager").post(url, form)
    assert response.status_code == 400
    assert SEEN in response.content.decode()
    assert GoldItem.objects.get(pool_item_id=answered).purpose == GoldPurpose.QUIZ


def test_the_api_says_why_it_refuses(met, personas):
    campaign, answered, drawn, *_rest, good = met
    api = api_client_for(personas, "manager")
    url = f"/api/v1/campaigns/{campaign.slug}/gold/"
    for item_id in (answered, drawn):
        body = {"item": item_id, "label": good.pk, "purpose": "honeypot"}
        response = api.post(url, body, format="json")
        assert response.status_code == 400
        assert SEEN in response.json()["detail"]
        assert GoldItem.objects.get(pool_item_id=item_id).purpose == GoldPurpose.QUIZ


def test_a_quiz_task_a_rater_met_stays_quiz_gold(personas):
    rater = make_raters(personas.campaign, 1, prefix="s")[0]
    comparison, quiz_tasks, _real = quiz_comparison(personas.campaign, quiz_tasks=3)
    require_quiz(comparison, items=2)
    attempt = quiz_start(comparison, rater)
    quiz_answer(scope=comparison, rater=rater, position=0, choice="same")
    undrawn = next(t for t in quiz_tasks if t.pk not in attempt.drawn)
    for task_id in attempt.drawn:
        with pytest.raises(GoldRefused) as refused:
            gold_task_set(
                comparison=comparison, manager=None, task_id=task_id, value="G", purpose="honeypot"
            )
        assert "seen this task in the qualification quiz" in refused.value.message
        assert GoldTask.objects.get(task_id=task_id).purpose == GoldPurpose.QUIZ
    api = api_client_for(personas, "manager")
    url = f"/api/v1/comparisons/{comparison.pk}/gold/"
    body = {"task": attempt.drawn[0], "value": "G", "purpose": "honeypot"}
    response = api.post(url, body, format="json")
    assert response.status_code == 400 and "qualification quiz" in response.json()["detail"]
    gold = gold_task_set(
        comparison=comparison, manager=None, task_id=undrawn.pk, value="G", purpose="honeypot"
    )
    assert gold.purpose == GoldPurpose.HONEYPOT
