"""The manager uploads a large run, watches its job's progress bar move on the jobs page
(no reload), and sees the import's summary: the development server and a real worker run as
their own processes (tests/jobs/stack.py)."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.jobs.stack import PASSWORD, PATIENCE, Stack, run_file

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::ResourceWarning")]

LINES = 700_000  # lines: reading them takes several of the page's half-second polls


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    stack = Stack(tmp_path_factory.mktemp("browser-stack"), tmp_path_factory)
    yield stack
    stack.close()


def test_the_manager_watches_a_large_import_progress(stack, page, artifacts, tmp_path):
    path = tmp_path / "big.run"
    path.write_bytes(run_file(LINES))
    page.goto(f"{stack.url}/login/")
    page.get_by_label("Username").fill("manager")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{stack.url}/campaigns/big/import/")
    page.get_by_label("What the file holds").select_option("run")
    page.get_by_label("File (UTF-8)").set_input_files(str(path))
    page.get_by_label("Run name").fill("big")
    page.locator("form[enctype] button[type=submit]").first.click()
    expect(page).to_have_url(re.compile(re.escape("/campaigns/big/jobs/") + "$"))
    bar = page.locator("tr[data-job] progress").first
    # The worker starts only now: the page shows the job queued, then follows it without a
    # reload (the marker set here would vanish with one).
    page.evaluate("window.__same_page = true")
    worker = stack.worker()
    try:
        seen, deadline = [], time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            state = page.locator('tr[data-job] [data-field="state"]').first.inner_text()
            seen.append((state, int(bar.evaluate("b => b.value")), int(bar.get_attribute("max"))))
            if state in ("succeeded", "failed", "cancelled"):
                break
            page.wait_for_timeout(200)
        assert state == "succeeded", seen
        assert page.evaluate("window.__same_page === true")
        moving = [value for s, value, top in seen if s.startswith("running") and 0 < value < top]
        assert moving, f"never saw the bar part-way: {seen}"
        assert seen[-1][1] == seen[-1][2] == LINES
        outcome = page.locator('tr[data-job] [data-field="outcome"]').first.inner_text()
        assert f"big.run: {LINES:,} lines read; {LINES:,} run entries created" in outcome, outcome
        page.screenshot(path=str(artifacts / "jobs-page.png"), full_page=True)
    finally:
        stack.stop(worker)
