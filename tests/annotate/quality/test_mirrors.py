"""Mirrored duplicates of side-by-side tasks (#18): made for a keyed share of a rater's answers,
offered to that rater alone and later, with the sides swapped; never real work; and the
consistency rule pauses a rater whose two answers disagree."""

from __future__ import annotations

import pytest
from django.test import override_settings

from annotate.judging.mirrors import mirror_drawn
from annotate.judging.sxs import VerdictRefused, sxs_queue, verdict_submit
from annotate.models import Membership, QualityEvent, Side, SxsTask, TaskLease, Verdict
from annotate.selectors.quality import mirror_pairs
from annotate.selectors_sxs import comparison_progress
from annotate.services.exports import verdict_rows
from annotate.services.quality import rater_resume
from metrics.decide.gsb import verdict_arrays
from tests.annotate.queue_helpers import make_raters
from tests.annotate.sxs_helpers import distinct_lists, make_comparison

pytestmark = pytest.mark.django_db


def _side_for(task, side, mode: str) -> str:
    """The button a rater presses: "left" always, or the candidate's side (consistent)."""
    if mode == "left":
        return "left"
    return "left" if side == Side.LEFT else "right"


def work(rater, comparison, mode: str, limit: int = 1000) -> int:
    """The rater answers what the queue gives until it gives nothing (or they are paused)."""
    answered = 0
    while answered < limit:
        try:
            held = sxs_queue(rater=rater, comparison=comparison)
        except VerdictRefused:
            break
        if not held:
            break
        for task, side in held:
            try:
                verdict_submit(rater=rater, task_id=task.pk, chosen=_side_for(task, side, mode))
            except VerdictRefused:
                return answered
            answered += 1
    return answered


def test_the_draw_is_keyed_and_takes_the_share_asked():
    secret = "ab" * 32
    drawn = [mirror_drawn(secret=secret, rater_id=7, task_id=t, share=0.05) for t in range(20000)]
    assert 0.045 < sum(drawn) / len(drawn) < 0.055
    again = [mirror_drawn(secret=secret, rater_id=7, task_id=t, share=0.05) for t in range(20000)]
    assert drawn == again
    other = [mirror_drawn(secret="cd" * 32, rater_id=7, task_id=t, share=0.05) for t in range(2000)]
    assert other != drawn[:2000]
    assert not any(mirror_drawn(secret=secret, rater_id=7, task_id=t, share=0) for t in range(99))


@override_settings(SXS_MIRROR_DELAY_SECONDS=0)
def test_mirrors_come_back_to_their_rater_alone_with_the_sides_swapped(personas):
    comparison = make_comparison(
        personas.campaign, distinct_lists(30), mirror_share=0.5, raters_per_task=2
    )
    (other,) = make_raters(personas.campaign, 1, prefix="o")
    personas.campaign.min_consistency = 0  # no pausing in this test
    personas.campaign.save()
    work(personas.rater, comparison, "candidate")
    mirrors = SxsTask.objects.filter(mirror_of__isnull=False)
    n_mirrors = mirrors.count()
    assert 5 < n_mirrors < 25  # about half of 30
    for mirror in mirrors:
        assert mirror.mirror_rater == personas.rater
        first = Verdict.objects.get(task=mirror.mirror_of, rater=personas.rater)
        second = Verdict.objects.get(task=mirror, rater=personas.rater)
        assert second.candidate_side != first.candidate_side  # swapped
        assert mirror.mirror_side == second.candidate_side
        assert second.value == first.value == "G"  # a consistent rater, un-swapped
        assert mirror.mirror_of.counted == 1  # the mirror's verdict is not the original's
    # Another rater never meets this rater's mirrors (only their own).
    work(other, comparison, "left")
    theirs = Verdict.objects.filter(rater=other, task__mirror_of__isnull=False)
    assert not theirs.exclude(task__mirror_rater=other).exists()
    assert Verdict.objects.filter(rater=other, task__mirror_of__isnull=True).count() == 30
    mirrors = mirrors.filter(mirror_rater=personas.rater)
    assert mirrors.count() == n_mirrors
    # Never real work: not in GSB, progress or the export.
    arrays = verdict_arrays(comparison)
    assert len(arrays.value) == 60 < Verdict.objects.count()
    assert comparison_progress(comparison) == {"counted": 60, "needed": 60, "identical": 0}
    assert len(list(verdict_rows(campaign=personas.campaign))) == 60
    pairs = mirror_pairs(personas.campaign)[personas.rater.pk]
    assert pairs[0] == pairs[1] and len(pairs[0]) == mirrors.count()


@override_settings(SXS_MIRROR_DELAY_SECONDS=3600)
def test_a_mirror_waits_its_delay(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(30), mirror_share=0.5)
    work(personas.rater, comparison, "candidate")
    assert SxsTask.objects.filter(mirror_of__isnull=False).exists()
    assert not Verdict.objects.filter(task__mirror_of__isnull=False).exists()


@override_settings(SXS_MIRROR_DELAY_SECONDS=0)
def test_an_inconsistent_rater_is_paused_released_and_refused_then_resumed(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(60), mirror_share=0.5)
    # Pressing "left" always: the swapped mirror gets the opposite verdict every time.
    work(personas.rater, comparison, "left")
    membership = Membership.objects.get(campaign=personas.campaign, user=personas.rater)
    assert membership.paused_at is not None
    assert membership.pause_reason["rule"] == "consistency"
    assert membership.pause_reason["n"] == 10  # paused as soon as the 10th pair came in
    assert membership.pause_reason["k"] == 0
    assert not TaskLease.objects.filter(rater=personas.rater).exists()  # items back in queue
    with pytest.raises(VerdictRefused) as refused:
        sxs_queue(rater=personas.rater, comparison=comparison)
    assert refused.value.status == 403 and "paused" in refused.value.message
    events = list(QualityEvent.objects.values_list("action", flat=True))
    assert events == ["pause"]
    # The manager resumes: work again, and the rule waits for 10 new pairs before it acts.
    assert rater_resume(campaign=personas.campaign, rater=personas.rater, by=personas.manager)
    assert sxs_queue(rater=personas.rater, comparison=comparison)
    work(personas.rater, comparison, "left", limit=3)
    membership.refresh_from_db()
    assert membership.paused_at is None


@override_settings(SXS_MIRROR_DELAY_SECONDS=0)
def test_the_answer_that_pauses_leases_nothing_more_and_the_json_says_why(personas):
    """The page's JSON endpoint: the answer on which a rule pauses the rater is stored, its
    reply is the paused message (403), and no next task is leased in that request."""
    import json

    from django.test import Client
    from django.urls import reverse

    from annotate.judging import handles

    personas.campaign.min_pairs = 2
    personas.campaign.save()
    comparison = make_comparison(personas.campaign, distinct_lists(40), mirror_share=0.5)
    client = Client()
    client.force_login(personas.rater)
    kwargs = {"slug": personas.campaign.slug, "comparison_id": comparison.pk}
    queue = reverse("annotate:sxs_api_queue", kwargs=kwargs)
    answer = reverse("annotate:sxs_api", kwargs=kwargs)
    for _ in range(60):
        state = client.get(queue).json()
        if not state.get("ok"):
            break
        handle = state["tasks"][0]["id"]
        reply = client.post(
            answer, json.dumps({"task": handle, "chosen": "left"}), content_type="application/json"
        )
        if reply.status_code != 200:
            break
    assert reply.status_code == 403, reply.content
    body = reply.json()
    assert body["paused"] is True and body["result"] == "created" and "paused" in body["error"]
    task_id = handles.task_id_for(personas.rater.pk, handles.SXS, handle)
    assert Verdict.objects.filter(task_id=task_id, rater=personas.rater).exists()
    assert not TaskLease.objects.filter(rater=personas.rater).exists()
    again = client.get(queue)
    assert again.status_code == 403 and again.json()["paused"] is True
