"""Hidden honeypots: whole gold queries mixed at random into a rater's queue, served to many
raters (each at most once), never as quiz gold, and indistinguishable from real work."""

from __future__ import annotations

import difflib
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotate.judging import honeypots
from annotate.judging.graded import GRADED, grade_submit, queue_items
from annotate.judging.sxs import sxs_queue, verdict_submit
from annotate.models import Document, GoldPurpose, Grade, PoolItem, Query, Role, SxsTask
from annotate.services.campaigns import membership_set
from annotate.services.gold import gold_item_set, gold_task_set
from tests.annotate.queue_helpers import queue_setup
from tests.annotate.sxs_helpers import distinct_lists, make_comparison, post_json, sxs_url


def _gold_query(campaign, manager, items, label, purpose=GoldPurpose.HONEYPOT) -> int:
    for item in items:
        gold_item_set(
            campaign=campaign, manager=manager, item_id=item.pk, label_id=label.pk, purpose=purpose
        )
    return items[0].query_id


@pytest.fixture
def setup(personas):
    campaign, items, raters, good, bad = queue_setup(
        personas.campaign, overlap=1, queries=4, docs_per_query=2, raters=3
    )
    return campaign, items, raters, good, bad, personas.manager


def _share(campaign, share: float) -> None:
    campaign.honeypot_share = share
    campaign.save(update_fields=["honeypot_share"])


def test_a_due_honeypot_is_a_whole_gold_query_served_to_every_rater_once(setup):
    campaign, items, raters, good, bad, manager = setup
    gold_query = _gold_query(campaign, manager, items[6:8], good)  # q3
    _share(campaign, 1.0)
    for rater in raters:  # overlap 1, yet every rater gets the gold query
        held = queue_items(rater=rater, campaign=campaign)
        assert {t.query_id for t in held} == {gold_query} and len(held) == 2
        for task in held:
            outcome = grade_submit(rater=rater, campaign=campaign, item_id=task.pk, label_id=bad.pk)
            assert outcome.created
        # Met once: the next query is real work although a honeypot is due every time.
        held = queue_items(rater=rater, campaign=campaign)
        assert held and gold_query not in {t.query_id for t in held}
        assert not any(t.pk in {i.pk for i in items[6:8]} for t in held)
    assert Grade.objects.filter(gold=True).count() == 6
    assert list(PoolItem.objects.filter(gold=True).values_list("counted", flat=True)) == [0, 0]


def test_no_honeypot_without_its_share_nor_from_quiz_gold_nor_a_partly_gold_query(setup):
    campaign, items, raters, good, bad, manager = setup
    _gold_query(campaign, manager, items[6:8], good, purpose=GoldPurpose.QUIZ)  # q3: quiz
    _gold_query(campaign, manager, items[4:5], good)  # q2 only half gold
    _share(campaign, 1.0)
    assert honeypots.honeypot_query(GRADED, scope=campaign, rater=raters[0]) is None
    _share(campaign, 0.0)
    _gold_query(campaign, manager, items[6:8], good)  # q3 now honeypot gold
    seen = set()
    while held := queue_items(rater=raters[0], campaign=campaign):
        seen |= {t.pk for t in held}
        for task in held:
            grade_submit(rater=raters[0], campaign=campaign, item_id=task.pk, label_id=bad.pk)
    assert seen == {i.pk for i in items[:4]} | {items[5].pk}


def test_the_share_draws_honeypots_at_about_its_rate(setup, monkeypatch):
    campaign, items, raters, good, bad, manager = setup
    _share(campaign, 0.05)
    monkeypatch.setattr(honeypots._draw, "random", lambda: 0.0)
    assert not honeypots.honeypot_due(GRADED, campaign)  # no honeypot gold: no draw at all
    _gold_query(campaign, manager, items[6:8], good)
    draws = [0.01, 0.049, 0.05, 0.5, 0.99]
    monkeypatch.setattr(honeypots._draw, "random", lambda: draws.pop(0))
    assert [honeypots.honeypot_due(GRADED, campaign) for _ in range(5)] == [
        True,
        True,
        False,
        False,
        False,
    ]


def test_the_look_ahead_lease_draws_honeypots_too(setup):
    campaign, items, raters, good, bad, manager = setup
    gold_query = _gold_query(campaign, manager, items[6:8], good)
    _share(campaign, 0.0)
    held = queue_items(rater=raters[0], campaign=campaign)
    grade_submit(rater=raters[0], campaign=campaign, item_id=held[0].pk, label_id=bad.pk)
    _share(campaign, 1.0)
    ahead = queue_items(rater=raters[0], campaign=campaign, look_ahead=True)
    assert gold_query in {t.query_id for t in ahead}


def test_side_by_side_honeypots_are_gold_tasks(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(3), raters_per_task=1)
    task = SxsTask.objects.filter(comparison=comparison).order_by("query__external_id").last()
    gold_task_set(comparison=comparison, manager=personas.manager, task_id=task.pk, value="G")
    personas.campaign.honeypot_share = 1.0
    personas.campaign.save()
    other = get_user_model().objects.create_user(username="second", password="x")
    membership_set(campaign=personas.campaign, user=other, role=Role.RATER)
    for rater in (personas.rater, other):
        held = sxs_queue(rater=rater, comparison=comparison)
        assert [t.pk for t, _side in held] == [task.pk]
        verdict_submit(rater=rater, comparison=comparison, task_id=task.pk, chosen="left")
        held = sxs_queue(rater=rater, comparison=comparison)
        assert held and task.pk not in {t.pk for t, _side in held}
    assert SxsTask.objects.get(pk=task.pk).counted == 0


# ---- indistinguishable --------------------------------------------------------------------


def _pair_campaign(campaign):
    """Three queries alike in shape: qa (to be gold), qb and qc (real), two documents each:
    after the first query, each rater has a real one to be leased ahead."""
    items = {}
    for qid in ("qa", "qb", "qc"):
        query = Query.objects.create(campaign=campaign, external_id=qid, text=f"text {qid}")
        for d in (1, 2):
            doc = Document.objects.create(
                campaign=campaign,
                external_id=f"{qid}doc{d}",
                title=f"title {qid}doc{d}",
                snippet=f"snippet {qid}doc{d}",
                url=f"https://example.org/{qid}doc{d}",
            )
            items[qid, d] = PoolItem.objects.create(campaign=campaign, query=query, document=doc)
    return items


def _everything(client, slug: str, label: int) -> list[str]:
    """Every page and reply a rater's browser gets on their first query: the judging page (its
    HTML and embedded state), the queue and progress replies, an answer's reply, the item
    page, the history page and the REST API's queue and grades."""
    seen = []
    judge = reverse("annotate:judge", kwargs={"slug": slug})
    seen.append(client.get(judge).content.decode())
    queue = client.get(reverse("annotate:judge_api_queue", kwargs={"slug": slug}))
    seen.append(queue.content.decode())
    shown = queue.json()["items"]
    seen.append(client.get(reverse("annotate:judge_api_progress", kwargs={"slug": slug})).content)
    answer = post_json(
        client,
        reverse("annotate:judge_api", kwargs={"slug": slug}),
        {"item": shown[0]["id"], "label": label, "seconds": 3},
    )
    seen.append(answer.content.decode())
    item_page = reverse("annotate:judge_item", kwargs={"slug": slug, "handle": shown[0]["id"]})
    seen.append(client.get(item_page).content.decode())
    seen.append(client.get(reverse("annotate:judge_history", kwargs={"slug": slug})).content)
    seen.append(client.get(judge).content.decode())  # the page with one answer given
    return [s.decode() if isinstance(s, bytes) else s for s in seen]


# A time as the pages show it ("Nov 28, 14:57", SHORT_DATETIME_FORMAT): the two campaigns'
# fetches can fall in different minutes (seen failing: "given 14:57" against "14:58").
SHOWN_TIME = r"\b(?:[A-Z][a-z]{2} \d{1,2}, )?\d{1,2}:\d\d\b"


def _blanked(texts: list[str], rater, handles_seen: list[str], campaign) -> list[str]:
    """The content left out: query and document texts, the rater's handles and names,
    times, the CSRF token and the grades' database ids."""
    out = []
    for text in texts:
        text = re.sub(r"q[abc]doc[12]|\bq[abc]\b", "CONTENT", text)
        for handle in sorted(set(handles_seen), key=len, reverse=True):
            text = text.replace(handle, "HANDLE")
        text = text.replace(rater.username, "RATER")
        text = text.replace(campaign.slug, "SLUG").replace(campaign.name, "NAME")
        # Each campaign's own label ids (two campaigns, two scales alike).
        text = re.sub(r'(name="label" value=")\d+', r"\1L", text)
        text = re.sub(r'"label": ?\d+', '"label": L', text)
        text = re.sub(r"label:\d+", "label:L", text)
        text = re.sub(r"csrfmiddlewaretoken\" value=\"[^\"]+", "CSRF", text)
        text = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)?", "TIME", text)
        text = re.sub(r"\"id\": ?\d+", '"id": N', text)
        text = re.sub(r"\b1\d{9}(\.\d+)?\b", "EPOCH", text)  # times shown, in seconds
        text = re.sub(SHOWN_TIME, "SHOWN", text)
        text = re.sub(r"(judge-outbox:[\w-]+:)[\w-]+", r"\1KEY", text)  # per rater
        out.append(text)
    return out


def _handles(texts: list[str]) -> list[str]:
    found = []
    for text in texts:
        found += re.findall(r'"id": ?"([A-Za-z0-9_-]{8,})"', text)
        found += re.findall(r'data-item="([^"]+)"', text)
        found += re.findall(r"/item/([A-Za-z0-9_-]+)/", text)
    return found


def test_a_honeypot_query_looks_exactly_like_a_real_one(personas):
    """Two campaigns alike, each with a gold query qa and a real query qb; a honeypot is due
    for the rater of the first (qa), never for the rater of the second (qb). Each fetches
    everything their browser and the API give on their first query: no difference but the
    content (texts, handles, names, times)."""
    fetched = {}
    for n, (campaign, manager, share) in enumerate(
        ((personas.campaign, personas.manager, 1.0), (personas.other_campaign, None, 0.0))
    ):
        items = _pair_campaign(campaign)
        good = campaign.labels.get(name="Good")
        for d in (1, 2):
            gold_item_set(campaign=campaign, manager=manager, item_id=items["qa", d].pk,
                          label_id=good.pk)  # fmt: skip
        campaign.honeypot_share = share
        campaign.save()
        user = get_user_model().objects.create_user(username=f"userxq{n}", password="x")
        membership_set(campaign=campaign, user=user, role=Role.RATER)
        client = Client()
        client.force_login(user)
        seen = _everything(client, campaign.slug, good.pk)
        api = APIClient()
        api.force_authenticate(user)
        grades = api.get(f"/api/v1/grades/?campaign={campaign.slug}").json()
        seen.append(json.dumps(grades, sort_keys=True))
        fetched[n] = _blanked(seen, user, _handles(seen), campaign)
        assert Grade.objects.get(rater=user).gold == (share == 1.0)
        # The content differs (so the comparison can fail): the queries' own texts show.
        assert ("qadoc" if share else "qbdoc") in seen[0]
    for n, (a, b) in enumerate(zip(fetched[0], fetched[1], strict=True)):
        diff = "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0))
        assert a == b, f"fetch {n} differs:\n{diff}"


def _sxs_everything(client, comparison) -> list[str]:
    """Everything a rater's browser gets on their first side-by-side task: the judging page,
    the queue and progress replies, an answer's reply, the task page, the history page, the
    page again."""
    seen = [client.get(sxs_url(comparison)).content.decode()]
    queue = client.get(sxs_url(comparison, "sxs_api_queue"))
    seen.append(queue.content.decode())
    first = queue.json()["tasks"][0]["id"]
    seen.append(client.get(sxs_url(comparison, "sxs_api_progress")).content.decode())
    body = {"task": first, "chosen": "left", "strength": 2, "reason": "", "seconds": 4}
    seen.append(post_json(client, sxs_url(comparison, "sxs_api"), body).content.decode())
    seen.append(client.get(sxs_url(comparison, "sxs_task", handle=first)).content.decode())
    seen.append(client.get(sxs_url(comparison, "sxs_history")).content.decode())
    seen.append(client.get(sxs_url(comparison)).content.decode())
    return seen


def _sxs_blanked(texts: list[str], user, comparison) -> list[str]:
    handles_seen = []
    for text in texts:
        handles_seen += re.findall(r'"id": ?"([A-Za-z0-9_-]{8,})"', text)
        handles_seen += re.findall(r"/task/([A-Za-z0-9_-]+)/", text)
        handles_seen += re.findall(r'data-task="([^"]+)"', text)
    out = []
    for text in texts:
        for handle in sorted(set(handles_seen), key=len, reverse=True):
            text = text.replace(handle, "HANDLE")
        text = re.sub(r"q\d-[ab]\d|\bq\d\b", "CONTENT", text)
        text = text.replace(user.username, "RATER")
        campaign = comparison.campaign
        text = text.replace(campaign.slug, "SLUG").replace(campaign.name, "NAME")
        text = text.replace(f"/{comparison.pk}/", "/COMPARISON/")
        text = re.sub(r"csrfmiddlewaretoken\" value=\"[^\"]+", "CSRF", text)
        text = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)?", "TIME", text)
        text = re.sub(r"\b1\d{9}(\.\d+)?\b", "EPOCH", text)
        text = re.sub(SHOWN_TIME, "SHOWN", text)
        text = re.sub(r"(outbox:[\w-]+:)[\w:-]+", r"\1KEY", text)
        out.append(text)
    return out


def test_a_side_by_side_honeypot_looks_exactly_like_a_real_task(personas):
    """As for graded work: two comparisons alike, a gold task q0 in each; a honeypot is due
    for the first rater, never for the second (who gets q1). No difference but the content."""
    fetched = {}
    for n, (campaign, share) in enumerate(
        ((personas.campaign, 1.0), (personas.other_campaign, 0.0))
    ):
        comparison = make_comparison(campaign, distinct_lists(4), raters_per_task=2)
        gold = comparison.tasks.get(query__external_id="q0")
        gold_task_set(comparison=comparison, manager=None, task_id=gold.pk, value="G")
        campaign.refresh_from_db()
        campaign.honeypot_share = share
        campaign.save()
        user = get_user_model().objects.create_user(username=f"userxs{n}", password="x")
        membership_set(campaign=campaign, user=user, role=Role.RATER)
        client = Client()
        client.force_login(user)
        seen = _sxs_everything(client, comparison)
        assert ("q0-a0" if share else "q1-a0") in seen[0]  # the content differs
        fetched[n] = _sxs_blanked(seen, user, comparison)
    for n, (a, b) in enumerate(zip(fetched[0], fetched[1], strict=True)):
        diff = "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0))
        assert a == b, f"fetch {n} differs:\n{diff}"
