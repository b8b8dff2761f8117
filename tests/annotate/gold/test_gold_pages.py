"""The manager's gold page: mark, unmark, import, gold from rulings, the honeypot share and the
answers' export; managers only (the other campaign's manager, a rater, an outsider: 404;
anonymous: to the sign-in page), nothing changed by a refused request."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotate.models import Campaign, GoldItem, GoldTask, PoolItem, SxsTask
from annotate.services.adjudication import adjudication_set
from tests.annotate.queue_helpers import build_pool
from tests.annotate.sxs_helpers import distinct_lists, make_comparison

OTHERS = ("other_manager", "rater", "outsider", "anonymous")


def _url(name: str, **kwargs) -> str:
    return reverse(f"annotate:{name}", kwargs={"slug": "campaign-a", **kwargs})


def _refused(personas, method: str, url: str, data=None) -> None:
    for name in OTHERS:
        client = personas.client_for(name)
        response = getattr(client, method)(url, data or {})
        if name == "anonymous":
            assert response.status_code == 302 and "login" in response["Location"]
        else:
            assert response.status_code == 404, (name, url)


def test_only_the_manager_sees_and_changes_gold(personas):
    items = build_pool(personas.campaign, queries=1, docs_per_query=2)
    good = personas.campaign.labels.get(name="Good")
    mark = {"query": "q0", "document": "q0-d0", "label": good.pk, "purpose": "honeypot"}
    _refused(personas, "get", _url("manage_gold"))
    _refused(personas, "post", _url("gold_mark"), mark)
    _refused(personas, "post", _url("gold_from_rulings"), {"purpose": "honeypot"})
    _refused(personas, "post", _url("gold_share"), {"share": "0.5"})
    _refused(personas, "get", _url("export_gold_answers"))
    assert not GoldItem.objects.exists()
    assert Campaign.objects.get(pk=personas.campaign.pk).honeypot_share == 0.05
    manager = personas.client_for("manager")
    assert manager.get(_url("manage_gold")).status_code == 200
    response = manager.post(_url("gold_mark"), {**mark, "explanation": "spot on"})
    assert response.status_code == 302
    gold = GoldItem.objects.get()
    assert gold.pool_item_id == items[0].pk and gold.explanation == "spot on"
    page = manager.get(_url("manage_gold")).content.decode()
    assert "spot on" in page and f'data-item="{items[0].pk}"' in page
    unmark = _url("gold_unmark", item_id=items[0].pk)
    _refused(personas, "post", unmark)
    assert GoldItem.objects.exists()
    assert manager.post(unmark).status_code == 302
    assert not GoldItem.objects.exists() and not PoolItem.objects.filter(gold=True).exists()


def test_bad_input_is_a_400_with_a_message(personas):
    build_pool(personas.campaign, queries=1, docs_per_query=1)
    good = personas.campaign.labels.get(name="Good")
    manager = personas.client_for("manager")
    cases = [
        {"query": "q0", "document": "nope", "label": good.pk, "purpose": "honeypot"},
        {"query": "q0", "document": "q0-d0", "label": 10**9, "purpose": "honeypot"},
        {"query": "q0", "document": "q0-d0", "label": good.pk, "purpose": "nope"},
    ]
    for case in cases:
        response = manager.post(_url("gold_mark"), case)
        assert response.status_code == 400 and 'class="error"' in response.content.decode()
    assert manager.post(_url("gold_share"), {"share": "2"}).status_code == 400
    bad = SimpleUploadedFile("gold.qrels", b"q0 0 q0-d0 3\nq0 0 missing 3\n")
    response = manager.post(_url("gold_import"), {"file": bad, "purpose": "honeypot"})
    assert response.status_code == 400 and "gold.qrels:2: " in response.content.decode()
    assert not GoldItem.objects.exists()


def test_import_rulings_share_and_export(personas):
    items = build_pool(personas.campaign, queries=2, docs_per_query=1)
    good = personas.campaign.labels.get(name="Good")
    manager = personas.client_for("manager")
    upload = SimpleUploadedFile("gold.qrels", b"q0 0 q0-d0 3\n")
    assert manager.post(_url("gold_import"), {"file": upload, "purpose": "quiz"}).status_code == 302
    assert GoldItem.objects.get().purpose == "quiz"
    adjudication_set(
        campaign=personas.campaign, manager=personas.manager, item_id=items[1].pk, label_id=good.pk
    )
    assert manager.post(_url("gold_from_rulings"), {"purpose": "honeypot"}).status_code == 302
    assert GoldItem.objects.count() == 2
    assert manager.post(_url("gold_share"), {"share": "0.2"}).status_code == 302
    assert Campaign.objects.get(pk=personas.campaign.pk).honeypot_share == 0.2
    export = manager.get(_url("export_gold_answers"))
    assert export.status_code == 200
    assert b"".join(export.streaming_content).decode().startswith("campaign,kind,")


def test_gold_tasks_on_the_page(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(2))
    manager = personas.client_for("manager")
    data = {"comparison": comparison.pk, "query": "q1", "value": "B", "purpose": "honeypot"}
    _refused(personas, "post", _url("gold_task_mark"), data)
    assert not GoldTask.objects.exists()
    assert manager.post(_url("gold_task_mark"), data).status_code == 302
    task = SxsTask.objects.get(comparison=comparison, query__external_id="q1")
    assert task.gold and task.gold_entry.value == "B"
    missing = manager.post(_url("gold_task_mark"), {**data, "query": "q9"})
    assert missing.status_code == 400
    unmark = _url("gold_task_unmark", task_id=task.pk)
    _refused(personas, "post", unmark)
    assert manager.post(unmark).status_code == 302
    assert not SxsTask.objects.get(pk=task.pk).gold
