"""The rater's judging screen: who may see it, the plain form flow, the JSON flow, refusals,
CSRF, history, the home page, and blindness (no system, run, rank or score ever shown)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotate.judging.graded import grade_submit, queue_items
from annotate.judging.screens import judge_queue
from annotate.models import (
    Document,
    Grade,
    GradeChange,
    Lease,
    PoolItem,
    Query,
    Run,
    RunEntry,
    Skip,
    System,
)
from tests.annotate.queue_helpers import build_pool, handle, item_id, make_raters
from tests.conftest import PERSONA_NAMES


@pytest.fixture
def pool(personas):
    return build_pool(personas.campaign, queries=2, docs_per_query=3)


def judge_url(slug: str = "campaign-a") -> str:
    return reverse("annotate:judge", kwargs={"slug": slug})


def api_url(slug: str = "campaign-a") -> str:
    return reverse("annotate:judge_api", kwargs={"slug": slug})


def queue_url(slug: str = "campaign-a") -> str:
    return reverse("annotate:judge_api_queue", kwargs={"slug": slug})


def progress_url(slug: str = "campaign-a") -> str:
    return reverse("annotate:judge_api_progress", kwargs={"slug": slug})


def post_json(client: Client, url: str, body, **headers):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(url, data=data, content_type="application/json", **headers)


def db_snapshot() -> tuple:
    return (
        sorted(Grade.objects.values_list("pool_item_id", "rater_id", "label_id", "cant_judge")),
        GradeChange.objects.count(),
        Skip.objects.count(),
    )


# ---- Who may see it -----------------------------------------------------------------------


@pytest.mark.parametrize("persona", PERSONA_NAMES)
def test_only_the_campaigns_raters_reach_its_judging_pages(personas, pool, persona):
    client = personas.client_for(persona)
    rater_handle = handle(personas.rater, pool[0])  # the rater's name for it, tried by all
    item_url = reverse("annotate:judge_item", kwargs={"slug": "campaign-a", "handle": rater_handle})
    history_url = reverse("annotate:judge_history", kwargs={"slug": "campaign-a"})
    for url in (judge_url(), history_url, item_url):
        response = client.get(url)
        if persona == "rater":
            # The queue page (first) leased the item, so the item page is the rater's too.
            assert response.status_code == 200
        elif persona == "anonymous":
            assert response.status_code == 302
            assert response["Location"].startswith(reverse("login"))
        elif persona == "manager" and url == judge_url():
            # A manager who is not a rater is shown the read-only preview, not a bare 404
            # (#21; tests/annotate/views/test_preview.py); the other pages stay closed.
            assert response.status_code == 302
            assert response["Location"] == reverse("annotate:judge_preview", args=["campaign-a"])
        else:
            assert response.status_code == 404, (persona, url)
            assert b"Campaign A" not in response.content


@pytest.mark.parametrize("persona", PERSONA_NAMES)
def test_the_api_answers_json_to_everyone_and_serves_only_raters(personas, pool, persona):
    client = personas.client_for(persona)
    expected = {"rater": 200, "anonymous": 401}.get(persona, 404)
    for url in (queue_url(), progress_url()):
        response = client.get(url)
        assert response.status_code == expected
        assert response["Content-Type"] == "application/json"
    if persona == "rater":
        return
    before = db_snapshot()
    label = personas.campaign.labels.first().pk
    response = post_json(client, api_url(), {"item": pool[0].pk, "label": label})
    assert response.status_code == expected
    assert response["Content-Type"] == "application/json"
    assert db_snapshot() == before


def test_a_manager_who_is_no_rater_gets_the_preview_not_403(personas, pool):
    # Once a bare 404; since #21 the read-only preview (test_preview.py). Never a 403.
    response = personas.client_for("manager").get(judge_url())
    assert response.status_code == 302 and response["Location"].endswith("/preview/")


def test_unknown_campaign_and_wrong_methods_never_500(personas, pool):
    client = personas.client_for("rater")
    assert client.get(judge_url("no-such-campaign")).status_code == 404
    assert client.get(api_url()).status_code == 405
    assert client.delete(judge_url()).status_code == 405
    assert client.get(queue_url("no-such")).status_code == 404


# ---- The screen ---------------------------------------------------------------------------


def test_the_screen_shows_one_document_the_labels_with_their_keys_and_guidelines(personas, pool):
    campaign = personas.campaign
    campaign.guidelines = "# Be kind\n\nGrade **Good** when it answers."
    campaign.save()
    Query.objects.filter(campaign=campaign).update(description="Looking for the intent")
    Document.objects.filter(campaign=campaign).update(
        url="https://example.org/page", snippet="A short snippet"
    )
    response = personas.client_for("rater").get(judge_url())
    html = response.content.decode()
    assert response.status_code == 200
    assert "Looking for the intent" in html and "A short snippet" in html
    assert 'href="https://example.org/page" target="_blank" rel="noopener noreferrer"' in html
    labels = list(campaign.labels.order_by("position"))
    for number, label in enumerate(labels, start=1):
        assert f'name="label" value="{label.pk}"' in html
        assert f"<kbd>{label.key.upper()}</kbd> · <kbd>{number}</kbd>" in html
    assert html.index(">Good<") < html.index(">Fair<") < html.index(">Bad<")
    assert "csrfmiddlewaretoken" in html
    assert '<details class="guidelines" id="guidelines" open>' in html  # a new rater reads them
    assert "<h1>Be kind</h1>" in html and "<strong>Good</strong>" in html
    assert 'id="judge-state"' in html


def test_guidelines_are_sanitised(personas, pool):
    campaign = personas.campaign
    campaign.guidelines = 'Hi <script>alert("x")</script> <img src=x onerror="alert(1)">'
    campaign.save()
    html = personas.client_for("rater").get(judge_url()).content.decode()
    assert 'alert("x")' not in html and "onerror" not in html
    assert "<script>alert" not in html


def test_a_javascript_url_never_becomes_a_link(personas, pool):
    Document.objects.filter(campaign=personas.campaign).update(url="javascript:alert(1)")
    client = personas.client_for("rater")
    assert "javascript:" not in client.get(judge_url()).content.decode()
    assert "javascript:" not in client.get(queue_url()).content.decode()


def test_the_items_of_one_query_come_together(personas, pool):
    items = personas.client_for("rater").get(queue_url()).json()["items"]
    assert len(items) == 3
    assert len({item["query"] for item in items}) == 1


# ---- The plain form flow (no JavaScript) ---------------------------------------------------


def test_a_grade_posted_without_javascript_redirects_to_the_next_item(personas, pool):
    client = personas.client_for("rater")
    good = personas.campaign.labels.get(name="Good")
    seen = []
    for _ in range(6):
        page = client.get(judge_url())
        item_id = page.context["item"]["id"]
        assert item_id not in seen
        seen.append(item_id)
        response = client.post(
            judge_url(), {"item": item_id, "label": good.pk, "shown_at": page.context["shown_at"]}
        )
        assert response.status_code == 302
        assert response["Location"] == judge_url()
    assert Grade.objects.filter(rater=personas.rater, label=good).count() == 6
    assert all(g.seconds is not None for g in Grade.objects.all())
    done = client.get(judge_url())
    assert done.status_code == 200
    assert "All done" in done.content.decode()
    assert done.context["progress"]["graded"] == 6


def test_skip_and_cant_judge_without_javascript(personas, pool):
    client = personas.client_for("rater")
    first = client.get(judge_url()).context["item"]["id"]
    assert client.post(judge_url(), {"item": first, "action": "skip"}).status_code == 302
    second = client.get(judge_url()).context["item"]["id"]
    assert second != first
    response = client.post(
        judge_url(), {"item": second, "action": "cant_judge", "comment": "  page is broken "}
    )
    assert response.status_code == 302
    rater = personas.rater
    assert Skip.objects.filter(rater=rater, pool_item_id=item_id(rater, first)).exists()
    grade = Grade.objects.get(rater=rater, pool_item_id=item_id(rater, second))
    assert grade.cant_judge and grade.label is None and grade.comment == "page is broken"


def test_a_refused_form_post_answers_4xx_and_shows_why(personas, pool):
    client = personas.client_for("rater")
    client.get(judge_url())
    other_label = personas.other_campaign.labels.first()
    held = handle(personas.rater, Lease.objects.filter(rater=personas.rater).first().pool_item_id)
    before = db_snapshot()
    response = client.post(judge_url(), {"item": held, "label": other_label.pk})
    assert response.status_code == 400
    assert "scale" in response.content.decode()
    assert client.post(judge_url(), {"item": "abc", "label": "1"}).status_code == 400
    assert client.post(judge_url(), {"item": held}).status_code == 400  # no label chosen
    assert db_snapshot() == before


def test_back_without_javascript_links_the_last_grade_and_allows_a_change(personas, pool):
    client = personas.client_for("rater")
    good = personas.campaign.labels.get(name="Good")
    bad = personas.campaign.labels.get(name="Bad")
    shown = client.get(judge_url()).context["item"]["id"]
    client.post(judge_url(), {"item": shown, "label": good.pk})
    item_url = reverse("annotate:judge_item", kwargs={"slug": "campaign-a", "handle": shown})
    assert client.get(judge_url()).context["back_url"] == item_url
    page = client.get(item_url)
    assert page.status_code == 200
    assert 'aria-pressed="true"' in page.content.decode()
    assert f'name="replaces" value="label:{good.pk}"' in page.content.decode()
    # Without what the page showed (a form from before the grade), a conflict; with it, a change.
    assert client.post(item_url, {"item": item_id, "label": bad.pk}).status_code == 409
    posted = {"item": 999999, "label": bad.pk, "replaces": page.context["replaces"]}
    response = client.post(item_url, posted)  # the URL decides the item
    assert response.status_code == 302
    grade = Grade.objects.get(rater=personas.rater, pool_item_id=item_id(personas.rater, shown))
    assert grade.label == bad
    assert GradeChange.objects.get(grade=grade).label == good


def test_an_item_the_rater_never_held_is_404(personas, pool):
    client = personas.client_for("rater")
    client.get(judge_url())
    not_mine = PoolItem.objects.exclude(leases__rater=personas.rater).first()
    mine = handle(personas.rater, not_mine)
    url = reverse("annotate:judge_item", kwargs={"slug": "campaign-a", "handle": mine})
    assert client.get(url).status_code == 404
    # Nor by its id, nor by a handle that names nothing.
    for other in (str(not_mine.pk), "AAAAAAAAAAA", "not-a-handle"):
        url = reverse("annotate:judge_item", kwargs={"slug": "campaign-a", "handle": other})
        assert client.get(url).status_code == 404
    assert client.post(url, {"label": personas.campaign.labels.first().pk}).status_code == 404


# ---- The JSON flow -------------------------------------------------------------------------


def test_a_json_grade_is_stored_once_and_answers_with_what_comes_next(personas, pool):
    client = personas.client_for("rater")
    state = client.get(queue_url()).json()
    first = state["items"][0]["id"]
    good = personas.campaign.labels.get(name="Good")
    body = {"item": first, "action": "label", "label": good.pk, "seconds": 4.25}
    response = post_json(client, api_url(), body)
    data = response.json()
    assert response.status_code == 200
    assert data["ok"] and data["result"] == "created"
    assert first not in [item["id"] for item in data["items"]]
    assert "progress" not in data  # counting is slow: the client asks for it once per query
    progress = client.get(progress_url()).json()
    assert progress["progress"]["done"] == 1
    assert progress["campaign"] == {"counted": 1, "needed": 6}
    again = post_json(client, api_url(), body).json()  # a network retry or a double click
    assert again["result"] == "unchanged"
    grade = Grade.objects.get(rater=personas.rater)
    assert grade.seconds == 4.25 and grade.label == good
    assert Grade.objects.count() == 1


def test_an_answer_gets_the_items_its_page_holds_by_name_alone(personas, pool):
    # Building every held item's card again for each answer was most of its time: the page
    # says what it holds ("known") and gets those back as their handle only.
    client = personas.client_for("rater")
    held = [item["id"] for item in client.get(queue_url()).json()["items"]]
    good = personas.campaign.labels.get(name="Good")
    known = held[:2]  # as if the page had not got the third yet
    body = {"item": held[0], "label": good.pk, "known": known}
    reply = post_json(client, api_url(), body).json()
    assert reply["result"] == "created"
    whole = client.get(queue_url()).json()["items"]  # what a page without a list is sent
    assert [item["id"] for item in reply["items"]] == [item["id"] for item in whole]
    for sent, full in zip(reply["items"], whole, strict=True):
        assert sent == ({"id": full["id"], "known": True} if full["id"] in known else full)
    assert [item.get("known", False) for item in reply["items"][:2]] == [True, False]
    assert Grade.objects.count() == 1


@pytest.mark.parametrize("known", ["HANDLE", [1], [None], ["x" * 65], ["HANDLE"] * 501, {"a": 1}])
def test_a_bad_known_list_is_400_and_stores_nothing(personas, pool, known):
    client = personas.client_for("rater")
    first = client.get(queue_url()).json()["items"][0]["id"]
    if known == "HANDLE" or known == ["HANDLE"] * 501:
        known = first if known == "HANDLE" else [first] * 501
    body = {"item": first, "label": personas.campaign.labels.get(name="Good").pk, "known": known}
    response = post_json(client, api_url(), body)
    assert response.status_code == 400
    assert "“known” must be a list" in response.json()["error"]
    assert Grade.objects.count() == 0


def test_a_json_change_keeps_the_old_value(personas, pool):
    client = personas.client_for("rater")
    first = client.get(queue_url()).json()["items"][0]["id"]
    good, fair = (personas.campaign.labels.get(name=n) for n in ("Good", "Fair"))
    post_json(client, api_url(), {"item": first, "label": good.pk})
    change = {"item": first, "label": fair.pk, "replaces": f"label:{good.pk}"}
    data = post_json(client, api_url(), change).json()
    assert data["result"] == "changed"
    assert GradeChange.objects.get().label == good
    cant = {"item": first, "action": "cant_judge", "comment": "?", "replaces": f"label:{fair.pk}"}
    data = post_json(client, api_url(), cant)
    assert data.json()["result"] == "changed"
    assert GradeChange.objects.count() == 2


def test_the_next_query_is_prefetched_before_the_last_item_of_a_query(personas, pool):
    client = personas.client_for("rater")
    items = client.get(queue_url()).json()["items"]
    good = personas.campaign.labels.get(name="Good")
    for item in items[:2]:
        data = post_json(client, api_url(), {"item": item["id"], "label": good.pk}).json()
    # One item of the first query is left: the next query's items come with it, after it.
    assert data["items"][0]["id"] == items[2]["id"]
    assert len(data["items"]) == 4
    assert {i["query"] for i in data["items"][1:]} != {items[0]["query"]}


def test_a_late_grade_for_an_item_others_finished_is_409_and_changes_nothing(personas, pool):
    client = personas.client_for("rater")
    first = client.get(queue_url()).json()["items"][0]["id"]
    Lease.objects.filter(rater=personas.rater).update(expires_at=timezone.now() - timedelta(1))
    (other,) = make_raters(personas.campaign, 1)
    held = queue_items(rater=other, campaign=personas.campaign)
    first_id = item_id(personas.rater, first)
    assert first_id in [item.pk for item in held]
    good = personas.campaign.labels.get(name="Good")
    grade_submit(rater=other, campaign=personas.campaign, item_id=first_id, label_id=good.pk)
    before = db_snapshot()
    response = post_json(client, api_url(), {"item": first, "label": good.pk})
    assert response.status_code == 409
    data = response.json()
    assert not data["ok"] and "ran out" in data["error"]
    assert "items" in data
    assert db_snapshot() == before


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ("not json", 400),
        ("[1, 2]", 400),
        ({"item": "abc", "label": 1}, 400),
        ({"item": 1.5, "label": 1}, 400),
        ({"item": None}, 400),
        ({"item": "HELD", "label": "xyz"}, 400),
        ({"item": "HELD", "action": "delete"}, 400),
        ({"item": "HELD", "label": "OTHER_LABEL"}, 400),
        ({"item": "HELD", "label": 10**12}, 400),
        ({"item": "HELD", "label": "GOOD", "seconds": "nan"}, 400),
        ({"item": "NOT_ASSIGNED", "label": "GOOD"}, 403),
        ({"item": "OTHER_CAMPAIGN", "label": "GOOD"}, 404),
        ({"item": 10**12, "label": "GOOD"}, 404),
    ],
)
def test_refused_json_grades_are_4xx_and_leave_the_database_unchanged(personas, pool, body, status):
    other_items = build_pool(personas.other_campaign, queries=1, docs_per_query=1)
    client = personas.client_for("rater")
    held = client.get(queue_url()).json()["items"][0]["id"]
    held_ids = set(Lease.objects.filter(rater=personas.rater).values_list("pool_item", flat=True))
    values = {
        "HELD": held,
        "NOT_ASSIGNED": handle(
            personas.rater,
            PoolItem.objects.exclude(pk__in=held_ids).filter(campaign=personas.campaign).first(),
        ),
        "OTHER_CAMPAIGN": handle(personas.rater, other_items[0]),
        "GOOD": personas.campaign.labels.get(name="Good").pk,
        "OTHER_LABEL": personas.other_campaign.labels.first().pk,
    }
    if isinstance(body, dict):
        body = {k: values.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
    before = db_snapshot()
    response = post_json(client, api_url(), body)
    assert response.status_code == status, response.content
    assert response.json()["ok"] is False and response.json()["error"]
    assert db_snapshot() == before


def test_skipping_through_json_stores_a_skip_and_the_item_does_not_return(personas, pool):
    client = personas.client_for("rater")
    first = client.get(queue_url()).json()["items"][0]["id"]
    data = post_json(client, api_url(), {"item": first, "action": "skip"}).json()
    assert data["result"] == "skipped"
    assert first not in [item["id"] for item in data["items"]]
    skipped = item_id(personas.rater, first)
    assert Skip.objects.filter(rater=personas.rater, pool_item_id=skipped).count() == 1
    # Skipping a graded item is refused: change the grade instead.
    second = data["items"][0]["id"]
    post_json(client, api_url(), {"item": second, "label": personas.campaign.labels.first().pk})
    assert post_json(client, api_url(), {"item": second, "action": "skip"}).status_code == 409


# ---- CSRF ----------------------------------------------------------------------------------


def test_grades_without_a_valid_csrf_token_are_refused(personas, pool):
    client = Client(enforce_csrf_checks=True)
    client.force_login(personas.rater)
    page = client.get(judge_url())
    item_id = page.context["item"]["id"]
    label = personas.campaign.labels.first().pk
    before = db_snapshot()
    assert post_json(client, api_url(), {"item": item_id, "label": label}).status_code == 403
    response = post_json(
        client, api_url(), {"item": item_id, "label": label}, HTTP_X_CSRFTOKEN="wrong" * 8
    )
    assert response.status_code == 403
    assert client.post(judge_url(), {"item": item_id, "label": label}).status_code == 403
    assert db_snapshot() == before
    token = client.cookies["csrftoken"].value
    response = post_json(
        client, api_url(), {"item": item_id, "label": label}, HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 200
    assert Grade.objects.count() == 1


# ---- History and home ----------------------------------------------------------------------


def test_history_lists_my_grades_with_their_earlier_values(personas, pool):
    client = personas.client_for("rater")
    items = client.get(queue_url()).json()["items"]
    good, bad = (personas.campaign.labels.get(name=n) for n in ("Good", "Bad"))
    post_json(client, api_url(), {"item": items[0]["id"], "label": good.pk})
    post_json(client, api_url(), {"item": items[1]["id"], "action": "cant_judge", "comment": "404"})
    change = {"item": items[0]["id"], "label": bad.pk, "replaces": f"label:{good.pk}"}
    post_json(client, api_url(), change)
    post_json(client, api_url(), {"item": items[2]["id"], "action": "skip"})
    response = client.get(reverse("annotate:judge_history", kwargs={"slug": "campaign-a"}))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<s>Good</s>" in html  # the old value, kept
    assert "Can't judge" in html and "(404)" in html
    assert items[0]["title"] in html and items[0]["query"] in html
    assert items[2]["title"] in html and "Skipped" in html  # a skip is listed too
    change = reverse("annotate:judge_item", kwargs={"slug": "campaign-a", "handle": items[0]["id"]})
    assert f'href="{change}?next=history"' in html
    # Changing from the history goes back to the history.
    response = client.post(
        f"{change}?next=history", {"label": good.pk, "replaces": f"label:{bad.pk}"}
    )
    assert response["Location"].endswith("/history/")


def test_history_shows_only_my_own_grades(personas, pool):
    (other,) = make_raters(personas.campaign, 1)
    held = queue_items(rater=other, campaign=personas.campaign)
    label = personas.campaign.labels.first()
    grade_submit(rater=other, campaign=personas.campaign, item_id=held[0].pk, label_id=label.pk)
    html = personas.client_for("rater").get(
        reverse("annotate:judge_history", kwargs={"slug": "campaign-a"})
    )
    assert held[0].document.title not in html.content.decode()


def test_home_shows_my_queues_with_progress_and_the_way_in(personas, pool):
    client = personas.client_for("rater")
    html = client.get(reverse("annotate:home")).content.decode()
    assert "Campaign A" in html and "Start judging" in html
    assert f'href="{judge_url()}"' in html
    assert "0 of 6 done" in html and "0 of 6 grades" in html
    item_id = client.get(queue_url()).json()["items"][0]["id"]
    post_json(client, api_url(), {"item": item_id, "label": personas.campaign.labels.first().pk})
    html = client.get(reverse("annotate:home")).content.decode()
    assert "Continue" in html and "1 of 6 done" in html and "1 of 6 grades" in html


# ---- Blind ---------------------------------------------------------------------------------

SECRETS = ["SYSTEM-SECRET-NAME", "RUN-SECRET-TAG", "0.987654", "31337", "rank", "score"]


def test_no_page_or_answer_carries_a_system_run_rank_score_or_another_grade(personas, pool):
    campaign = personas.campaign
    campaign.overlap = 2
    campaign.save()
    system = System.objects.create(campaign=campaign, name="SYSTEM-SECRET-NAME")
    run = Run.objects.create(campaign=campaign, system=system, name="RUN-SECRET-TAG")
    RunEntry.objects.bulk_create(
        RunEntry(run=run, query=item.query, document=item.document, rank=31337, score=0.987654)
        for item in pool
    )
    (other,) = make_raters(campaign, 1, prefix="OTHER-RATER-")
    fair = campaign.labels.get(name="Fair")
    for item in queue_items(rater=other, campaign=campaign):
        grade_submit(
            rater=other, campaign=campaign, item_id=item.pk, label_id=fair.pk, comment="PEER-NOTE"
        )
    client = personas.client_for("rater")
    pages = [client.get(judge_url()), client.get(queue_url()), client.get(progress_url())]
    shown = pages[1].json()["items"][0]["id"]
    pages.append(post_json(client, api_url(), {"item": shown, "label": fair.pk}))
    item_url = reverse("annotate:judge_item", kwargs={"slug": "campaign-a", "handle": shown})
    pages += [
        client.get(item_url),
        client.get(reverse("annotate:judge_history", kwargs={"slug": "campaign-a"})),
        client.get(reverse("annotate:home")),
    ]
    for response in pages:
        text = response.content.decode()
        assert response.status_code == 200
        for secret in [*SECRETS, "OTHER-RATER-", "PEER-NOTE"]:
            assert secret not in text, (secret, response.request["PATH_INFO"])
    assert set(pages[2].json()) == {"ok", "progress", "campaign"}
    for key in pages[1].json()["items"][0]:
        assert key in {"id", "query", "description", "title", "url", "snippet"}


def test_a_query_started_first_is_finished_first_even_with_a_higher_id(personas, pool):
    rater = personas.rater
    first_query, second_query = sorted({item.query_id for item in pool})
    later = [item for item in pool if item.query_id == second_query]
    earlier = [item for item in pool if item.query_id == first_query]
    expires = timezone.now() + timedelta(minutes=10)
    for item in later + earlier:
        Lease.objects.create(pool_item=item, rater=rater, expires_at=expires)
    Lease.objects.filter(pool_item__in=earlier).update(created_at=expires)  # leased later
    items = judge_queue(rater=rater, campaign=personas.campaign)
    assert [item.query_id for item in items] == [second_query] * 3 + [first_query] * 3
