"""The manager sets up a model judge against the fake OpenAI-compatible server
(tests/support/fake_openai.py), looks at the prompt, counts the requests, runs it, watches the
job's progress and cost on the jobs page, and reads the model against the raters on the label
sources report. The development server, a real job worker and the fake endpoint each run as
their own process."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.jobs.stack import PASSWORD, PATIENCE, Stack
from tests.support.fake_openai_fixture import FakeOpenAI

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::ResourceWarning")]

KEY = "sk-browser-test"
ITEMS = 24

# Items whose documents tell the fake model what to say; two raters grade each of them.
WORLD = """
from django.contrib.auth import get_user_model
from annotate.models import Campaign, Document, Grade, Label, PoolItem, Query, Role
from annotate.services.campaigns import membership_set
c = Campaign.objects.get(slug="big")
labels = {{l.grade: l for l in Label.objects.filter(campaign=c)}}
raters = []
for name in ("ann", "bob"):
    user = get_user_model().objects.create_user(username=name, password="x")
    membership_set(campaign=c, user=user, role=Role.RATER)
    raters.append(user)
for i in range({items}):
    q = Query.objects.get(campaign=c, external_id=f"q{{i}}")
    truth = 1 + i % 3
    said = truth if i % 4 else 1 + (truth % 3)
    d = Document.objects.create(campaign=c, external_id=f"doc{{i}}", title=f"Page {{i}}",
                                snippet=f"ANSWER={{said}} MODE=slow:0.3")
    item = PoolItem.objects.create(campaign=c, query=q, document=d)
    for n, rater in enumerate(raters):
        grade = truth if (i + n) % 5 else 1 + (truth % 3)
        Grade.objects.create(pool_item=item, rater=rater, label=labels[grade])
"""


@pytest.fixture(scope="module")
def fake():
    server = FakeOpenAI(key=KEY)
    yield server
    server.close()


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    stack = Stack(tmp_path_factory.mktemp("judge-stack"), tmp_path_factory)
    stack.env |= {"LLMJUDGE_KEY_BROWSER": KEY, "LLMJUDGE_BACKOFF_SECONDS": "0.01"}
    stack.shell(WORLD.format(items=ITEMS))
    yield stack
    stack.close()


def test_the_manager_runs_a_model_judge_and_reads_it_against_the_raters(
    stack, fake, page, artifacts
):
    page.goto(f"{stack.url}/login/")
    page.get_by_label("Username").fill("manager")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{stack.url}/reports/big/sources/")
    page.get_by_role("link", name="Labels from a language model").click()
    assert "sends each item" in page.get_by_test_id("data-leaves").inner_text()
    form = page.get_by_test_id("new-judge")
    form.get_by_label("Name").fill("fake")
    form.get_by_label("Endpoint base URL").fill(fake.base_url)
    form.get_by_label("Model").fill("fake-1")
    form.get_by_label("API key variable").fill("LLMJUDGE_KEY_BROWSER")
    form.get_by_label("Max concurrency").fill("2")
    form.get_by_label("Requests per minute").fill("6000")
    form.get_by_role("button", name="Save the judge").click()
    expect(page).to_have_url(re.compile(re.escape("/campaigns/big/judges/fake/") + "$"))
    prompt = page.get_by_test_id("prompt-user").inner_text()
    assert "3 = Good" in prompt and "[query 0]" in prompt and "Page 0" in prompt

    page.get_by_role("button", name="Dry run: count the requests").click()
    dry = page.get_by_test_id("dry-run").inner_text()
    counted = f"{ITEMS} items × 1 samples = {ITEMS} answers: 0 in the cache, {ITEMS} requests to"
    assert counted in dry
    assert fake.log() == []  # nothing sent yet

    page.get_by_role("button", name="Run the judge").click()
    expect(page).to_have_url(re.compile(re.escape("/campaigns/big/jobs/") + "$"))
    worker = stack.worker()
    try:
        seen, deadline = [], time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            row = page.locator("tr[data-job]").first
            state = row.locator('[data-field="state"]').inner_text()
            outcome = row.locator('[data-field="outcome"]').inner_text()
            seen.append((state, outcome))
            if state in ("succeeded", "failed", "cancelled"):
                break
            page.wait_for_timeout(200)
        assert state == "succeeded", seen
        assert any(s.startswith("running") and "so far:" in o for s, o in seen), seen
        assert outcome.startswith(f"{ITEMS} of {ITEMS} items labelled as model:fake"), outcome
        page.screenshot(path=str(artifacts / "model-judge-job.png"), full_page=True)
    finally:
        stack.stop(worker)
    assert len(fake.log()) == ITEMS

    page.goto(f"{stack.url}/reports/big/sources/")
    section = page.get_by_test_id("models-vs-raters")
    assert "Human baseline" in section.inner_text()
    table = section.get_by_test_id("model-raters-table")
    assert "rater:ann" in table.inner_text() and "rater:bob" in table.inner_text()
    assert "language model fake-1" in page.get_by_test_id("sources-table").inner_text()
    page.screenshot(path=str(artifacts / "model-judge-report.png"), full_page=True)
