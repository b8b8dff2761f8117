"""Steps the rater-quality browser tests share (#18): a rater answers by a key until a rule
pauses them, and the manager resumes them on the rater quality page."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from annotate.models import Campaign, Membership
from tests.browser.session import log_in
from tests.browser.test_judging import keys_ready

DOUBLE_TAP_MS = 150  # static/js/judge-keys.js
# The page's clock when a key press last reached the window: keydown bubbles there after the
# judging page's own handler on the document has run (and marked the press handled).
WATCH_KEYS = """() => {
  if (window.__keyDoneAt !== undefined) return;
  window.__keyDoneAt = null;
  window.addEventListener("keydown", () => { window.__keyDoneAt = performance.now(); });
}"""
PAST_GUARD = "gap => !(window.__keyDoneAt > performance.now() - gap)"


def press_until_paused(
    page: Page, membership: Membership, key: Callable[[Page], str], limit: int = 60
) -> int:
    """Press key(page) (the key for what the screen shows now) until the database holds the
    rater paused; returns how many presses it took."""
    presses = 0
    while presses < limit:
        membership.refresh_from_db()
        if membership.paused_at is not None:
            return presses
        keys_ready(page)
        pressed = key(page)
        page.evaluate(WATCH_KEYS)
        # One answer a press: wait for its answer before the next, and past the double-tap
        # guard, which ignores the same key pressed again within 150 ms of the page handling
        # it; timed by the page's own clock from after its handler ran.
        with page.expect_response(lambda r: r.request.method == "POST"):
            page.keyboard.press(pressed)
        presses += 1
        page.wait_for_function(PAST_GUARD, arg=DOUBLE_TAP_MS + 10)
    raise AssertionError("the rater was never paused")


def manager_resumes(
    page: Page,
    base_url: str,
    campaign: Campaign,
    *,
    standing: str,
    cells: dict[str, str],
    screenshot: Path | None = None,
) -> None:
    """The manager, in a browser context of their own, finds the rater paused on the rater
    quality page with `standing` (the reason) and the figures `cells` (by test id), and
    resumes them."""
    context = page.context.browser.new_context(viewport={"width": 1400, "height": 900})
    manager = context.new_page()
    log_in(manager, base_url, "manager", home=False)
    manager.goto(f"{base_url}/reports/{campaign.slug}/raters/")
    row = manager.locator('tr[data-rater="rater"]')
    expect(row.get_by_test_id("standing")).to_contain_text("Paused")
    expect(row.get_by_test_id("standing")).to_contain_text(standing)
    for test_id, text in cells.items():
        expect(row.get_by_test_id(test_id)).to_contain_text(text)
    if screenshot is not None:
        manager.screenshot(path=str(screenshot), full_page=True)
    row.get_by_test_id("resume").click()
    expect(manager.locator('tr[data-rater="rater"]').get_by_test_id("standing")).to_contain_text(
        "Active"
    )
    context.close()
