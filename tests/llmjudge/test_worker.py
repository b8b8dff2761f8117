"""A model judge's run in a real worker process (tests/jobs/stack.py), cancelled half-way
from the API: the job stops, the answers already paid for stay in the cache, the label source
is not written; a rerun asks only for the rest."""

from __future__ import annotations

import pytest

from tests.jobs.stack import Stack
from tests.support.fake_openai_fixture import FakeOpenAI

pytestmark = [pytest.mark.filterwarnings("ignore::ResourceWarning")]

KEY = "sk-worker-test"
ITEMS = 30

WORLD = """
from annotate.models import Campaign, Document, PoolItem, Query
from llmjudge.models import ModelJudge
from llmjudge.prompt import DEFAULT_TEMPLATE
c = Campaign.objects.get(slug="big")
for i in range({items}):
    q = Query.objects.get(campaign=c, external_id=f"q{{i}}")
    d = Document.objects.create(
        campaign=c, external_id=f"doc{{i}}", snippet="ANSWER=2"
    )
    PoolItem.objects.create(campaign=c, query=q, document=d)
ModelJudge.objects.create(campaign=c, name="fake", base_url={url!r}, model="fake-1",
    api_key_env="LLMJUDGE_KEY_WORKER", template=DEFAULT_TEMPLATE, requests_per_minute=60000,
    max_concurrency=1)
"""

START = """
from django.contrib.auth import get_user_model
from llmjudge.jobs import start_judge_job
from llmjudge.models import ModelJudge
job, run = start_judge_job(judge=ModelJudge.objects.get(name="fake"),
                           user=get_user_model().objects.get(username="manager"))
print(job.pk)
"""


@pytest.fixture(scope="module")
def fake():
    server = FakeOpenAI(key=KEY)
    yield server
    server.close()


@pytest.fixture(scope="module")
def stack(tmp_path_factory, fake):
    stack = Stack(tmp_path_factory.mktemp("judge-worker"), tmp_path_factory)
    stack.env |= {"LLMJUDGE_KEY_WORKER": KEY}
    stack.shell(WORLD.format(items=ITEMS, url=fake.base_url))
    yield stack
    stack.close()


def start(stack: Stack) -> int:
    return int(stack.shell(START).strip().splitlines()[-1])


def test_a_cancelled_run_keeps_its_answers_and_a_rerun_asks_only_the_rest(stack, fake):
    worker = stack.worker()
    # Slow answers while the first run is cancelled midway; the rerun needs no slowness, and
    # the delay is the server's own (not in the prompt), so both runs send the same prompts.
    fake.delay(0.3)
    try:
        job_id = start(stack)
        stack.wait_job(job_id, lambda j: j["state"] == "running" and j["done"] >= 3)
        assert stack.api("POST", f"/api/v1/jobs/{job_id}/cancel/").status_code == 200
        stopped = stack.wait_job(job_id, lambda j: j["finished"])
        assert stopped["state"] == "cancelled", stopped
        assert "kept in the cache" in stopped["error"] and "unchanged" in stopped["error"]
        kept, sources = stack.query_all(
            "__import__('llmjudge.models').models.ModelReply.objects.count()",
            "LabelSource.objects.filter(name='model:fake').count()",
        )
        assert 3 <= kept < ITEMS
        assert sources == 0
        sent = len(fake.log())
        assert kept <= sent < ITEMS

        fake.delay(0)
        again = start(stack)
        done = stack.wait_job(again, lambda j: j["finished"])
        assert done["state"] == "succeeded", done
        assert f"{kept:,} answers from the cache" in done["outcome"], done["outcome"]
        assert len(fake.log()) == sent + (ITEMS - kept)
        labelled = "SourceLabel.objects.filter(source__name='model:fake').count()"
        assert stack.query(labelled) == ITEMS
    finally:
        fake.delay(0)
        stack.stop(worker)
