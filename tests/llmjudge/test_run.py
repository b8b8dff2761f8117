"""A model judge's run against the fake OpenAI-compatible server in a subprocess, through the
real `openai` client: answers parsed into a label source, the reply cache, retries, budget,
rate limit and cancellation."""

from __future__ import annotations

import itertools

import pytest

from annotate.models import LabelSource, SourceLabel
from jobs.runner import JobCancelled
from llmjudge.models import JudgeRun, ModelReply
from llmjudge.run import judge_dry_run, judge_run
from tests.llmjudge.helpers import make_items, make_judge

pytestmark = pytest.mark.django_db


def run(judge, progress=None):
    record = JudgeRun.objects.create(judge=judge)
    return judge_run(judge=judge, run=record, progress=progress or (lambda done, total: None))


def labels(source_name="model:fake") -> dict[tuple[str, str], float]:
    rows = SourceLabel.objects.filter(source__name=source_name).values_list(
        "query__external_id", "document__external_id", "grade"
    )
    return {(q, d): g for q, d, g in rows}


def test_it_labels_each_item_with_the_grade_the_model_answers(personas, server):
    c = personas.campaign
    make_items(c, {("q1", "d1"): "ANSWER=3", ("q1", "d2"): "ANSWER=Bad", ("q2", "d3"): "ANSWER=2"})
    outcome = run(make_judge(c, server.base_url))
    assert labels() == {("q1", "d1"): 3.0, ("q1", "d2"): 1.0, ("q2", "d3"): 2.0}
    source = LabelSource.objects.get(name="model:fake")
    assert source.kind == "model" and source.params["model"] == "fake-1"
    assert outcome.run.requests == 3 and outcome.run.labelled == 3 and outcome.run.cache_hits == 0
    reply = ModelReply.objects.get(document__external_id="d2")
    assert '"grade": "Bad"' in reply.reply and reply.grade == 1.0
    # Token counts are the server's own (words of the prompt and of the reply).
    assert reply.prompt_tokens > 50 and reply.completion_tokens == len(reply.reply.split())
    assert len(reply.prompt_hash) == 64 and reply.latency_ms >= 0


def test_a_rerun_is_answered_from_the_cache_and_a_changed_document_is_asked_again(personas, server):
    c = personas.campaign
    items = make_items(c, {("q1", "d1"): "ANSWER=3", ("q1", "d2"): "ANSWER=2"})
    judge = make_judge(c, server.base_url)
    run(judge)
    assert len(server.log()) == 2
    again = run(judge)
    assert len(server.log()) == 2  # nothing sent
    assert again.run.cache_hits == 2 and again.run.requests == 0 and again.run.labelled == 2
    doc = items[1].document
    doc.snippet = "ANSWER=1 (rewritten)"
    doc.save()
    third = run(judge)
    assert len(server.log()) == 3 and third.run.cache_hits == 1
    assert labels() == {("q1", "d1"): 3.0, ("q1", "d2"): 1.0}
    # A changed template is a new prompt for every item.
    judge.template += "\nBe careful."
    judge.save()
    run(judge)
    assert len(server.log()) == 5


def test_429_and_500_are_retried_with_backoff_and_400_is_not(personas, server):
    c = personas.campaign
    make_items(c, {("q1", "d1"): "ANSWER=3 MODE=429:2", ("q1", "d2"): "ANSWER=2 MODE=500:1"})
    outcome = run(make_judge(c, server.base_url, max_concurrency=1))
    statuses = [entry["status"] for entry in server.log()]
    assert sorted(statuses) == [200, 200, 429, 429, 500]
    assert labels() == {("q1", "d1"): 3.0, ("q1", "d2"): 2.0}
    assert outcome.run.requests == 5
    assert ModelReply.objects.get(document__external_id="d1").attempts == 3

    server.reset()
    make_items(c, {("q2", "d3"): "MODE=400"})
    with pytest.raises(ValueError, match="refused: HTTP 400"):
        run(make_judge(c, server.base_url, name="other", query_ids="q2"))
    assert [entry["status"] for entry in server.log()] == [400]


def test_an_item_that_keeps_failing_is_counted_and_the_others_are_labelled(personas, server):
    c = personas.campaign
    make_items(c, {("q1", "d1"): "MODE=500:99", ("q1", "d2"): "ANSWER=2"})
    outcome = run(make_judge(c, server.base_url))
    assert labels() == {("q1", "d2"): 2.0}
    assert outcome.run.failed == 1 and outcome.run.requests == 1 + 4  # 3 retries
    assert outcome.warnings == ["no answer after 4 attempts: HTTP 500"]
    assert not ModelReply.objects.filter(document__external_id="d1").exists()  # not cached


def test_an_unreadable_answer_is_asked_once_more_then_kept_as_no_answer(personas, server):
    c = personas.campaign
    make_items(c, {("q1", "d1"): "ANSWER=3 MODE=malformed:1", ("q1", "d2"): "MODE=malformed"})
    outcome = run(make_judge(c, server.base_url))
    assert labels() == {("q1", "d1"): 3.0}
    assert outcome.run.no_answer == 1 and outcome.run.requests == 4
    kept = ModelReply.objects.get(document__external_id="d2")
    assert kept.grade is None and kept.attempts == 2 and "maybe a 2 or a 3" in kept.reply


def test_the_run_stops_at_its_request_budget_and_a_bigger_budget_finishes_it(personas, server):
    c = personas.campaign
    make_items(c, {("q1", f"d{i}"): f"ANSWER={1 + i % 3}" for i in range(6)})
    judge = make_judge(c, server.base_url, max_requests=3, max_concurrency=2)
    outcome = run(judge)
    assert len(server.log()) == 3 and outcome.run.requests == 3
    assert "budget of 3 requests" in outcome.run.stopped and outcome.run.labelled == 3
    assert "stopped early" in outcome.summary()
    judge.max_requests = 100
    judge.save()
    second = run(judge)
    assert len(server.log()) == 6 and second.run.cache_hits == 3 and not second.run.stopped
    assert labels() == {("q1", f"d{i}"): float(1 + i % 3) for i in range(6)}


def test_the_run_stops_at_its_token_budget(personas, server):
    c = personas.campaign
    make_items(c, {("q1", f"d{i}"): "ANSWER=2" for i in range(5)})
    first = run(make_judge(c, server.base_url, name="probe", max_concurrency=1, query_ids="q1"))
    per_item = first.run.tokens // 5
    judge = make_judge(c, server.base_url, max_tokens=2 * per_item, max_concurrency=1,
                       template=first.run.judge.template + " ")  # fmt: skip
    outcome = run(judge)
    assert "tokens" in outcome.run.stopped and outcome.run.requests == 2


def test_requests_are_spaced_by_the_rate_limit(personas, server):
    c = personas.campaign
    make_items(c, {("q1", f"d{i}"): "ANSWER=2" for i in range(5)})
    run(make_judge(c, server.base_url, requests_per_minute=300, max_concurrency=4))
    times = sorted(entry["t"] for entry in server.log())
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # 300 a minute: one start every 0.2 s, so 0.8 s from the first to the fifth (four threads
    # would send all five at once without the limit). Arrival times jitter on a loaded
    # machine: a margin of one interval over the span, and at most one gap under half one.
    assert len(times) == 5 and times[-1] - times[0] >= 0.6, gaps
    assert sorted(gaps)[1] >= 0.1, gaps


def test_several_samples_are_aggregated_by_the_campaigns_rule(personas, server):
    import numpy as np

    c = personas.campaign
    c.aggregation = "median"
    c.save()
    make_items(c, {("q1", "d1"): "ANSWER=3|1|2", ("q1", "d2"): "ANSWER=3|3|1"})
    run(make_judge(c, server.base_url, samples=3, max_concurrency=1))
    assert labels() == {("q1", "d1"): float(np.median([3, 1, 2])),
                        ("q1", "d2"): float(np.median([3, 3, 1]))}  # fmt: skip
    assert ModelReply.objects.count() == 6


def test_a_cancelled_run_keeps_its_replies_and_leaves_the_source_alone(personas, server):
    c = personas.campaign
    make_items(c, {("q1", f"d{i}"): "ANSWER=2 MODE=slow:0.2" for i in range(8)})
    judge = make_judge(c, server.base_url, max_concurrency=1)
    seen = []

    def progress(done, total):
        seen.append(done)
        if done >= 2:
            raise JobCancelled

    with pytest.raises(JobCancelled):
        run(judge, progress)
    assert not LabelSource.objects.filter(name="model:fake").exists()
    kept = ModelReply.objects.count()
    assert 2 <= kept < 8 and len(server.log()) < 8
    rerun = run(judge)
    assert rerun.run.cache_hits == kept and len(labels()) == 8


def test_the_key_comes_from_the_named_environment_variable(personas, server, monkeypatch):
    c = personas.campaign
    make_items(c, {("q1", "d1"): "ANSWER=2"})
    monkeypatch.delenv("LLMJUDGE_KEY_TEST")
    with pytest.raises(ValueError, match=r"LLMJUDGE_KEY_TEST .* is not set"):
        run(make_judge(c, server.base_url))
    monkeypatch.setenv("LLMJUDGE_KEY_TEST", "wrong")
    with pytest.raises(ValueError, match="HTTP 401"):
        run(make_judge(c, server.base_url, name="again"))
    assert [entry["status"] for entry in server.log()] == [401]


def test_a_run_checks_the_key_variable_and_endpoint_again(personas, server, settings, monkeypatch):
    c = personas.campaign
    make_items(c, {("q1", "d1"): "ANSWER=2"})
    monkeypatch.setenv("SOME_SECRET", "the server's")
    judge = make_judge(c, server.base_url, api_key_env="SOME_SECRET")  # saved behind the form
    with pytest.raises(ValueError, match="SOME_SECRET may not be used"):
        run(judge)
    settings.LLMJUDGE_ENDPOINTS = ["https://api.openai.com/v1"]
    with pytest.raises(ValueError, match="allows only these endpoints"):
        run(make_judge(c, server.base_url, name="other"))
    assert server.log() == []


def test_a_dry_run_counts_requests_and_tokens_before_sending_anything(personas, server):
    c = personas.campaign
    make_items(c, {("q1", f"d{i}"): "ANSWER=2" for i in range(4)})
    judge = make_judge(c, server.base_url, samples=2, max_requests=5, max_output_tokens=50)
    dry = judge_dry_run(judge)
    assert (dry.items, dry.requests, dry.cached, dry.to_send) == (4, 8, 0, 8)
    assert dry.output_tokens == 400 and dry.prompt_tokens > 8 * 50
    assert "budget of 5" in dry.budget_note and server.log() == []
    judge.max_requests = 100
    judge.save()
    run(judge)
    assert judge_dry_run(judge).to_send == 0


def test_items_with_the_same_content_are_asked_once_and_both_labelled(personas, server):
    from annotate.models import Query

    c = personas.campaign
    make_items(c, {("q1", "d1"): "ANSWER=3", ("q2", "d1"): "ANSWER=3", ("q2", "d2"): "ANSWER=2"})
    Query.objects.filter(campaign=c, external_id="q2").update(text="text of q1")  # a duplicate
    outcome = run(make_judge(c, server.base_url))
    assert len(server.log()) == 2 and outcome.run.requests == 2
    assert labels() == {("q1", "d1"): 3.0, ("q2", "d1"): 3.0, ("q2", "d2"): 2.0}
