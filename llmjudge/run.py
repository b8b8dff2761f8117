"""A labelling run of a model judge: plan the requests (items × samples), take what the reply
cache already holds, ask the endpoint for the rest within the budget and the rate limit,
then write the label source `model:<name>` from the answers.

Every reply is committed as it arrives (not in the job's one transaction, as other jobs do):
a reply costs money, so a cancelled, failed or budget-stopped run keeps what it paid for and
a rerun does not ask again. The label source itself is replaced in one transaction at the
end, so a report never sees half a run; a cancelled run leaves it as it was.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

import numpy as np
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotate.models import LabelSource, SourceKind
from annotate.services.labels.common import labels_write
from llmjudge.client import (
    Answer,
    Budget,
    BudgetSpent,
    Endpoint,
    EndpointError,
    RateLimiter,
    Stopped,
    estimate_tokens,
)
from llmjudge.items import Item, builder_for, selected_items
from llmjudge.models import JudgeRun, ModelJudge, ModelReply
from llmjudge.parsing import grade_names, parse_grade
from llmjudge.policy import endpoint_problem, key_variable_problem
from llmjudge.prompt import prompt_hash, sha256_json
from metrics.core.aggregate import aggregate

RETRY_NOTE = (
    "Your answer could not be read. Answer with the JSON object only, with a grade of the scale."
)


@dataclass(frozen=True)
class Request:
    item: Item
    sample: int
    key: str
    item_hash: str
    messages: list[dict[str, str]]


@dataclass
class Plan:
    template_hash: str
    requests: list[Request]
    cached: dict[str, float | None]  # key -> grade (None: the model gave no answer)

    @property
    def items(self) -> int:
        return len({(r.item.query_id, r.item.document_id) for r in self.requests})


@dataclass(frozen=True)
class DryRun:
    items: int
    samples: int
    requests: int
    cached: int
    to_send: int
    prompt_tokens: int  # estimated, for the requests to send
    output_tokens: int  # at most
    budget_note: str


def cache_key(judge: ModelJudge, template_hash: str, item_hash: str, sample: int) -> str:
    return sha256_json([judge.base_url.rstrip("/"), judge.model, judge.temperature,
                        template_hash, item_hash, sample])  # fmt: skip


def judge_plan(judge: ModelJudge) -> Plan:
    """Every request of a run, and which the cache answers. ValueError for a bad template."""
    builder = builder_for(judge)
    requests = []
    for item in selected_items(judge):
        item_hash = item.text.content_hash()
        messages = builder.messages(item.text)
        for sample in range(judge.samples):
            key = cache_key(judge, builder.template_hash, item_hash, sample)
            requests.append(Request(item, sample, key, item_hash, messages))
    keys = [r.key for r in requests]
    cached: dict[str, float | None] = {}
    for start in range(0, len(keys), 2000):
        rows = ModelReply.objects.filter(
            campaign=judge.campaign, key__in=keys[start : start + 2000]
        )
        cached.update(rows.values_list("key", "grade"))
    return Plan(builder.template_hash, requests, cached)


def judge_dry_run(judge: ModelJudge) -> DryRun:
    """What a run would send, before anything is sent."""
    plan = judge_plan(judge)
    unique = {r.key: r for r in plan.requests}
    to_send = [r for key, r in unique.items() if key not in plan.cached]
    prompt = sum(estimate_tokens(" ".join(m["content"] for m in r.messages)) for r in to_send)
    output = len(to_send) * judge.max_output_tokens
    notes = []
    if len(to_send) > judge.max_requests:
        notes.append(f"more requests than the budget of {judge.max_requests:,}")
    if prompt + output > judge.max_tokens:
        notes.append(f"possibly more tokens than the budget of {judge.max_tokens:,}")
    return DryRun(
        items=plan.items, samples=judge.samples, requests=len(plan.requests),
        cached=sum(r.key in plan.cached for r in plan.requests), to_send=len(to_send),
        prompt_tokens=prompt,
        output_tokens=output, budget_note="; ".join(notes),
    )  # fmt: skip


def api_key(judge: ModelJudge) -> str:
    """The key from the worker's environment. ValueError when the variable is not set, or
    may not be used (llmjudge.policy), or the endpoint may not."""
    problem = key_variable_problem(judge.api_key_env) or endpoint_problem(judge.base_url)
    if problem:
        raise ValueError(problem)
    if not judge.api_key_env:
        return ""
    value = os.environ.get(judge.api_key_env, "")
    if not value:
        raise ValueError(
            f"the environment variable {judge.api_key_env} (the API key) is not set for the "
            "job worker"
        )
    return value


@dataclass
class Result:
    request: Request
    answer: Answer | None = None
    grade: float | None = None
    attempts: int = 0
    error: str = ""
    stop: str = ""  # set when the budget is spent: nothing more is asked
    fatal: bool = False


@dataclass
class RunOutcome:
    run: JudgeRun
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        # Written in the job's language (whoever started it), shown on the jobs page.
        r = self.run
        values = {
            "labelled": f"{r.labelled:,}", "items": f"{r.items:,}", "source": r.judge.source_name,
            "requests": f"{r.requests:,}", "cached": f"{r.cache_hits:,}",
            "tokens": f"{r.tokens:,}", "no_answer": f"{r.no_answer:,}",
            "failed": f"{r.failed:,}", "stopped": r.stopped,
        }  # fmt: skip
        if r.stopped:
            return (
                gettext(
                    "%(labelled)s of %(items)s items labelled as %(source)s: %(requests)s requests "
                    "sent, %(cached)s answers from the cache, %(tokens)s tokens, %(no_answer)s "
                    "answers unreadable, %(failed)s failed; stopped early: %(stopped)s"
                )
                % values
            )
        return (
            gettext(
                "%(labelled)s of %(items)s items labelled as %(source)s: %(requests)s requests "
                "sent, %(cached)s answers from the cache, %(tokens)s tokens, %(no_answer)s answers "
                "unreadable, %(failed)s failed"
            )
            % values
        )


def cost_so_far(run: JudgeRun) -> str:
    return gettext(
        "so far: %(requests)s requests sent, %(tokens)s tokens (%(prompt)s in, %(completion)s "
        "out), %(cached)s answers from the cache, %(no_answer)s unreadable, %(failed)s failed"
    ) % {
        "requests": f"{run.requests:,}",
        "tokens": f"{run.tokens:,}",
        "prompt": f"{run.prompt_tokens:,}",
        "completion": f"{run.completion_tokens:,}",
        "cached": f"{run.cache_hits:,}",
        "no_answer": f"{run.no_answer:,}",
        "failed": f"{run.failed:,}",
    }


def judge_run(
    *,
    judge: ModelJudge,
    run: JudgeRun,
    progress: Callable[[int, int], None],
    note: Callable[[str], None] | None = None,
) -> RunOutcome:
    """Run ``judge`` as ``run``; ``progress(done, total)`` after every answer may raise to
    cancel (the replies so far stay cached); ``note(text)`` hears the cost so far. ValueError
    for a bad template, a missing key or an endpoint that refuses (4xx)."""
    plan = judge_plan(judge)
    endpoint_stop = threading.Event()
    budget = Budget(max_requests=judge.max_requests, max_tokens=judge.max_tokens)
    endpoint = Endpoint(
        base_url=judge.base_url, model=judge.model, api_key=api_key(judge),
        temperature=judge.temperature, max_output_tokens=judge.max_output_tokens,
        timeout=judge.timeout_seconds, budget=budget,
        limiter=RateLimiter(judge.requests_per_minute, endpoint_stop),
    )  # fmt: skip
    # Two pool items with the same content (a duplicated query, a mirrored page) are one
    # question: asked once, the answer labels both.
    unique = {r.key: r for r in plan.requests}
    todo = [r for key, r in unique.items() if key not in plan.cached]
    run.items, run.cache_hits = plan.items, len(unique) - len(todo)
    run.save(update_fields=["items", "cache_hits"])
    collector = _Collector(judge=judge, run=run, plan=plan, budget=budget, note=note)
    progress(run.cache_hits, len(unique))
    grades = grade_names(list(judge.campaign.labels.values_list("name", "grade")))
    pool = ThreadPoolExecutor(max_workers=judge.max_concurrency, thread_name_prefix="judge")
    futures: list[Future] = []
    try:
        futures = [pool.submit(_ask, endpoint, r, grades) for r in todo]
        for future in as_completed(futures):
            collector.add(future.result())
            progress(collector.done, len(unique))
            if collector.fatal:
                raise ValueError(collector.fatal)
    finally:
        endpoint_stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        # Stopped early (cancelled, refused): the answers that were on their way are paid
        # for too; keep them.
        for future in futures:
            if future.done() and not future.cancelled():  # add() skips those it has
                collector.add(future.result())
        collector.flush()
    return collector.finish()


def _ask(endpoint: Endpoint, request: Request, grades: dict[str, float]) -> Result:
    """One item and sample, in a thread of the run: ask, and once more when the answer does
    not parse (with the unreadable reply and a reminder of the form)."""
    result = Result(request)
    messages = request.messages
    try:
        for _ in range(2):
            answer = endpoint.ask(messages)
            result.attempts += answer.attempts
            result.answer = _merged(result.answer, answer)
            result.grade = parse_grade(answer.text, grades=grades)
            if result.grade is not None:
                break
            messages = [*request.messages, {"role": "assistant", "content": answer.text},
                        {"role": "user", "content": RETRY_NOTE}]  # fmt: skip
    except BudgetSpent as exc:
        # A first reply that did not parse, stopped before its reminder, is not kept: cached
        # as "no answer" it would never get the reminder on a rerun.
        result.stop = str(exc)
    except Stopped:
        result.stop = "cancelled"
    except EndpointError as exc:
        result.error, result.fatal = str(exc), exc.fatal
    return result


def _merged(previous: Answer | None, answer: Answer) -> Answer:
    """The last reply's text, with the tokens and time of every attempt."""
    if previous is None:
        return answer
    return Answer(answer.text, previous.prompt_tokens + answer.prompt_tokens,
                  previous.completion_tokens + answer.completion_tokens,
                  previous.latency_ms + answer.latency_ms)  # fmt: skip


class _Collector:
    """Stores each answer as it comes (the cache), counts, and writes the source at the end."""

    def __init__(
        self, *, judge: ModelJudge, run: JudgeRun, plan: Plan, budget: Budget, note=None
    ) -> None:
        self.judge, self.run, self.plan, self.budget = judge, run, plan, budget
        self.note = note
        self.done = run.cache_hits
        self.fatal = ""
        self.errors: list[str] = []
        self.answers: dict[str, float | None] = dict(plan.cached)
        self.seen: set[int] = set()  # results added (ids: a result may come twice on a stop)

    def add(self, result: Result) -> None:
        if id(result) in self.seen:
            return
        self.seen.add(id(result))
        request = result.request
        if result.stop:
            self.run.stopped = self.run.stopped or result.stop
        elif result.error:
            self.run.failed += 1
            self.errors.append(result.error)
            self.fatal = self.fatal or (result.error if result.fatal else "")
        else:
            self._store(result)
            self.answers[request.key] = result.grade
            self.run.no_answer += result.grade is None
        self.done += 1
        self.flush()

    def _store(self, result: Result) -> None:
        r, a = result.request, result.answer
        ModelReply.objects.update_or_create(
            campaign=self.judge.campaign, key=r.key,
            defaults=dict(
                endpoint=self.judge.base_url, model=self.judge.model,
                template_hash=self.plan.template_hash, item_hash=r.item_hash,
                prompt_hash=prompt_hash(r.messages), sample=r.sample,
                query_id=r.item.query_id, document_id=r.item.document_id, reply=a.text,
                grade=result.grade, attempts=result.attempts, latency_ms=a.latency_ms,
                prompt_tokens=a.prompt_tokens, completion_tokens=a.completion_tokens,
            ),
        )  # fmt: skip

    def flush(self) -> None:
        run, budget = self.run, self.budget
        run.requests = budget.requests
        run.prompt_tokens, run.completion_tokens = budget.prompt_tokens, budget.completion_tokens
        run.save(update_fields=["requests", "prompt_tokens", "completion_tokens", "failed",
                                "no_answer", "stopped"])  # fmt: skip
        if self.note is not None:
            self.note(cost_so_far(run))

    def finish(self) -> RunOutcome:
        """Aggregate the samples of each item by the campaign's rule; replace the source."""
        item_index: dict[tuple[int, int], int] = {}
        rows, values = [], []
        for r in self.plan.requests:
            grade = self.answers.get(r.key)
            pair = (r.item.query_id, r.item.document_id)
            index = item_index.setdefault(pair, len(item_index))
            if grade is not None:
                rows.append(index)
                values.append(grade)
        items, grades, _ = aggregate(
            np.array(rows), np.array(values), self.judge.campaign.aggregation
        )
        pairs = list(item_index)
        query_ids = np.array([pairs[i][0] for i in items], dtype=np.int64)
        document_ids = np.array([pairs[i][1] for i in items], dtype=np.int64)
        self._write_source(query_ids, document_ids, grades)
        self.run.labelled = int(items.size)
        self.run.finished_at = timezone.now()
        self.run.save()
        warnings = sorted(set(self.errors))[:10]
        return RunOutcome(self.run, warnings)

    @transaction.atomic
    def _write_source(self, query_ids, document_ids, grades) -> None:
        judge, run = self.judge, self.run
        params = {
            "judge": judge.name, "endpoint": judge.base_url, "model": judge.model,
            "temperature": judge.temperature, "samples": judge.samples,
            "rule": judge.campaign.aggregation, "template_hash": self.plan.template_hash,
            "run": run.pk, "items": run.items, "labelled": int(grades.size),
            "no_answer": run.no_answer, "failed": run.failed, "stopped": run.stopped,
        }  # fmt: skip
        source, created = LabelSource.objects.get_or_create(
            campaign=judge.campaign, name=judge.source_name,
            defaults={"kind": SourceKind.MODEL, "params": params},
        )  # fmt: skip
        if not created:
            if source.kind != SourceKind.MODEL:
                raise ValueError(f"a label source {source.name!r} exists and is not a model's")
            source.labels.all().delete()
            source.params = params
            source.save(update_fields=["params"])
        labels_write(source=source, query_id=query_ids, document_id=document_ids, grade=grades)
