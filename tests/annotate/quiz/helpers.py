"""Builders for the quiz tests: a campaign whose first queries are quiz gold and the next
ones honeypot gold, the rest real work; a comparison with quiz gold tasks."""

from __future__ import annotations

from annotate.models import GoldPurpose, SxsTask
from annotate.services.gold import gold_item_set, gold_task_set
from annotate.services.quiz import quiz_settings_set
from tests.annotate.queue_helpers import queue_setup
from tests.annotate.sxs_helpers import distinct_lists, make_comparison

EXPLANATION = "The page answers the query in its first line."


def quiz_campaign(campaign, *, quiz_queries=3, honeypot_queries=1, real_queries=2, docs=4):
    """(campaign, quiz items, honeypot items, real items, raters, Good, Bad). Quiz gold
    accepts Good only; honeypot gold accepts Bad only."""
    queries = quiz_queries + honeypot_queries + real_queries
    campaign, items, raters, good, bad = queue_setup(
        campaign, overlap=1, queries=queries, docs_per_query=docs, raters=2
    )
    quiz = items[: quiz_queries * docs]
    honey = items[quiz_queries * docs : (quiz_queries + honeypot_queries) * docs]
    real = items[(quiz_queries + honeypot_queries) * docs :]
    for item in quiz:
        gold_item_set(
            campaign=campaign,
            manager=None,
            item_id=item.pk,
            label_id=good.pk,
            explanation=EXPLANATION,
            purpose=GoldPurpose.QUIZ,
        )
    for item in honey:
        gold_item_set(campaign=campaign, manager=None, item_id=item.pk, label_id=bad.pk)
    campaign.refresh_from_db()
    return campaign, quiz, honey, real, raters, good, bad


def require_quiz(scope, *, items=10, pass_percent=80, attempts=3) -> None:
    quiz_settings_set(
        scope=scope, required=True, items=items, pass_percent=pass_percent, attempts=attempts
    )


def quiz_comparison(campaign, *, quiz_tasks=4, real_tasks=3, prefix="s"):
    """(comparison, quiz tasks, real tasks): the first tasks quiz gold, accepted verdict G
    (the candidate better)."""
    lists = {f"{prefix}{q}": pair for q, pair in distinct_lists(quiz_tasks + real_tasks).items()}
    comparison = make_comparison(campaign, lists)
    tasks = SxsTask.objects.filter(comparison=comparison, identical=False)
    tasks = list(tasks.order_by("query__external_id"))
    for task in tasks[:quiz_tasks]:
        gold_task_set(
            comparison=comparison,
            manager=None,
            task_id=task.pk,
            value="G",
            explanation="The candidate's first result answers it.",
            purpose=GoldPurpose.QUIZ,
        )
    return comparison, tasks[:quiz_tasks], tasks[quiz_tasks:]
