"""Side-by-side gold pauses a rater, in a real Chromium (#18): a comparison's tasks include
gold pairs (whole honeypot queries whose accepted verdict a manager settled, "candidate
better" or "candidate worse"), mixed among the real tasks. The rater judges by the arrow keys
as a person would, from what the screen shows: the test knows which documents each system
returns (the database), reads the first result on the left, and so knows the side the
candidate is on for this rater. On real pairs the rater prefers the candidate; on gold pairs
they press the other way than the accepted verdict. Once the side-by-side gold rule runs with
the campaign's minimum of gold answers met, the rater is paused and told so on the judging
page. The manager resumes them on the rater quality page and the rater judges again; the
database holds every verdict, the gold ones counted nowhere."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, expect

from annotate.judging import honeypots
from annotate.judging.sxs import candidate_side_for
from annotate.models import (
    GoldTask,
    Membership,
    QualityEvent,
    Query,
    RunEntry,
    SxsTask,
    TaskLease,
    Verdict,
)
from annotate.selectors.real import real_verdicts
from annotate.services.gold import gold_task_set
from annotate.services.quality import EVERY
from tests.annotate.sxs_helpers import distinct_lists, make_comparison
from tests.browser.quality_helpers import manager_resumes, press_until_paused
from tests.browser.session import log_in
from tests.browser.test_judging import keys_ready, page_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MIN_GOLD = 3  # the campaign's minimum of gold answers, low to keep the test short
# Every other query is gold until the gold runs out: MIN_GOLD gold answers come within
# 2 * MIN_GOLD presses, the rules run within EVERY more (on a verdict id that is a multiple
# of EVERY, whatever ids earlier tests used), and real work is left after that to judge again.
GOLD_QUERIES, REAL_QUERIES = 14, 18
assert GOLD_QUERIES >= MIN_GOLD + EVERY // 2
assert REAL_QUERIES > MIN_GOLD + EVERY // 2 + 1
LIMIT = 2 * MIN_GOLD + EVERY


class AlternatingDraw:
    """The honeypot draw (honeypots._draw), made predictable: a real query first, then a
    honeypot, and so on. The product's draw is random; the test wants real work and gold
    mixed in every run, and real work first."""

    def __init__(self) -> None:
        self._values = itertools.cycle([0.99, 0.0])

    def random(self) -> float:
        return next(self._values)


@dataclass
class Seen:
    """One task as the rater met it: what the screen showed and the key they pressed."""

    task: SxsTask
    accepted: str | None  # the gold verdict for the candidate, None for real work
    candidate_left: bool  # read from the screen, by the documents the candidate returns
    key: str

    @property
    def value(self) -> str:
        """The verdict the key gives for the candidate."""
        toward = "ArrowLeft" if self.candidate_left else "ArrowRight"
        return "G" if self.key == toward else "B"


def _comparison(personas):
    campaign = personas.campaign
    lists = distinct_lists(GOLD_QUERIES + REAL_QUERIES)
    comparison = make_comparison(campaign, lists, depth=3, mirror_share=0.0)
    gold_ids = [f"q{i}" for i in range(1, 2 * GOLD_QUERIES, 2)]  # q1, q3, ...: among the real
    for n, qid in enumerate(gold_ids):
        task = SxsTask.objects.get(comparison=comparison, query__external_id=qid)
        gold_task_set(
            comparison=comparison,
            manager=personas.manager,
            task_id=task.pk,
            value="GB"[n % 2],
            explanation="the first result answers it",
        )
    campaign.refresh_from_db()
    campaign.honeypot_share = 0.5
    campaign.min_gold_answers = MIN_GOLD
    campaign.save()
    return comparison


def _candidate_titles(comparison, query: Query) -> set[str]:
    entries = RunEntry.objects.filter(run=comparison.candidate, query=query)
    return set(entries.values_list("document__title", flat=True))


def rater(comparison, seen: list[Seen]):
    """The key for the task on the screen, as the rater chooses it; records what they saw."""

    def key(page: Page) -> str:
        if seen:  # the next task is shown once the last one's query text is gone
            expect(page.locator("#query-text")).not_to_have_text(seen[-1].task.query.text)
        query = Query.objects.get(campaign=comparison.campaign, text=page.inner_text("#query-text"))
        task = SxsTask.objects.select_related("query").get(comparison=comparison, query=query)
        first_left = page.locator("#results-left .sxs-title").first.inner_text()
        candidate_left = first_left in _candidate_titles(comparison, query)
        gold = GoldTask.objects.filter(task=task).values_list("value", flat=True).first()
        toward, away = (
            ("ArrowLeft", "ArrowRight") if candidate_left else ("ArrowRight", "ArrowLeft")
        )
        # Wrong on gold: away from the candidate when it is accepted as better, toward it
        # when accepted as worse. Real work: the candidate is better.
        pressed = away if gold == "G" else toward
        seen.append(Seen(task=task, accepted=gold, candidate_left=candidate_left, key=pressed))
        return pressed

    return key


def test_a_rater_who_misses_side_by_side_gold_is_paused_then_resumed(
    personas, live_server, page, artifacts, monkeypatch
):
    comparison = _comparison(personas)
    campaign = personas.campaign
    monkeypatch.setattr(honeypots, "_draw", AlternatingDraw())
    membership = Membership.objects.get(campaign=campaign, user=personas.rater)
    errors = page_errors(page)
    log_in(page, live_server.url, "rater", home=False)
    url = f"{live_server.url}/sxs/{campaign.slug}/{comparison.pk}/"
    page.goto(url)
    seen: list[Seen] = []
    presses = press_until_paused(page, membership, rater(comparison, seen), limit=LIMIT)

    # Every press stored as the verdict the screen's sides gave it, on the sides the rater
    # saw: gold pairs shuffled by the same rule as real ones.
    assert presses == len(seen)
    verdicts = {v.task_id: v for v in Verdict.objects.filter(rater=personas.rater)}
    assert sorted(verdicts) == sorted(s.task.pk for s in seen)
    for s in seen:
        verdict = verdicts[s.task.pk]
        assert verdict.value == s.value, s
        assert verdict.candidate_side == ("L" if s.candidate_left else "R"), s
        assert verdict.candidate_side == candidate_side_for(
            secret=comparison.side_secret, rater_id=personas.rater.pk, task_id=s.task.pk
        )
        assert verdict.gold == (s.accepted is not None), s
    gold = [s for s in seen if s.accepted is not None]
    real = [s for s in seen if s.accepted is None]
    # Real work first, then gold mixed in; every gold verdict the other way than accepted.
    assert seen[0].accepted is None and len(gold) >= MIN_GOLD and real
    assert all(verdicts[s.task.pk].value != s.accepted for s in gold)
    # Paused by the side-by-side gold rule, on a verdict whose id is a multiple of EVERY.
    assert max(v.pk for v in verdicts.values()) % EVERY == 0
    n = len(gold)
    membership.refresh_from_db()
    assert membership.pause_reason == {"rule": "gold_sxs", "k": 0, "n": n, "threshold": 0.6}
    assert not TaskLease.objects.filter(rater=personas.rater).exists()

    # Gold counts nowhere: not among the real verdicts, not on its tasks' counters.
    mine = Verdict.objects.filter(task__comparison=comparison, rater=personas.rater)
    assert sorted(real_verdicts(mine, campaign).values_list("task_id", flat=True)) == sorted(
        s.task.pk for s in real
    )
    counted = dict(SxsTask.objects.filter(comparison=comparison).values_list("pk", "counted"))
    assert all(counted[s.task.pk] == 0 for s in gold)
    assert all(counted[s.task.pk] == 1 for s in real)

    # The rater is told on the judging page they were working on, and on coming back to it.
    expect(page.locator("#notice")).to_contain_text("a manager reviews the quality")
    # The answer the rule paused them on was stored: looking back, the page says so.
    page.keyboard.press("Backspace")
    banner = page.locator("#change-banner")
    expect(banner).to_contain_text("Changing an earlier answer")
    expect(banner).not_to_contain_text("Not stored")
    page.goto(url)
    expect(page.get_by_role("heading", name="Your work is paused")).to_be_visible()
    expect(page.get_by_test_id("rater-paused")).to_contain_text("a manager reviews the quality")
    page.screenshot(path=str(artifacts / "rater-paused-sxs-gold.png"), full_page=True)
    assert errors == []

    # The manager sees the side-by-side gold reason and resumes them.
    manager_resumes(
        page,
        live_server.url,
        campaign,
        standing=f"Side-by-side gold: 0 of {n} right (0%), below 60%.",
        cells={"sxs-gold": f"0/{n}"},
    )
    membership.refresh_from_db()
    assert membership.paused_at is None and membership.pause_reason == {}
    events = list(
        QualityEvent.objects.order_by("pk").values_list("action", "by__username", "reason")
    )
    # Quick presses may also raise a fast-answer flag (by the rules, never a pause).
    pause, resume = (e for e in events if e[0] != "flag")
    assert pause == ("pause", None, {"rule": "gold_sxs", "k": 0, "n": n, "threshold": 0.6})
    # The resume records the gold answers the rule had judged: it acts again only on new ones.
    assert resume[:2] == ("resume", "manager") and resume[2]["seen"]["gold_sxs"] == n
    assert all(by is None for action, by, _ in events if action == "flag")

    # The rater judges again: one more verdict stored, and they stay at work.
    page.goto(url)
    keys_ready(page)
    key = rater(comparison, seen)(page)
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.keyboard.press(key)
    again = Verdict.objects.get(rater=personas.rater, task=seen[-1].task)
    assert again.value == seen[-1].value and seen[-1].task.pk not in verdicts
    membership.refresh_from_db()
    assert membership.paused_at is None
    assert errors == []
    page.goto("about:blank")
