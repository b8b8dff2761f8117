"""Side-by-side gold from a file: a CSV of one comparison's tasks and accepted verdicts; one
transaction, a bad line reported as file:line: why with nothing changed, and refused wherever
the page refuses, with the page's message. On the gold page: managers only."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from annotate.judging.sxs import verdict_submit
from annotate.models import GoldTask, SxsTask, TaskLease, Verdict
from annotate.services.imports import ImportFailed
from annotate.services.imports.gold_sxs import import_sxs_gold
from tests.annotate.gold.test_gold_pages import OTHERS
from tests.annotate.sxs_helpers import distinct_lists, make_comparison

HEADER = "query,verdict,explanation\n"


@pytest.fixture
def comparison(personas):
    lists = distinct_lists(3)
    lists["same"] = (["s-1", "s-2"], ["s-1", "s-2"])  # both sides alike: an identical task
    return make_comparison(personas.campaign, lists, raters_per_task=1)


def _file(text: str) -> io.BytesIO:
    return io.BytesIO(text.encode())


def _gold(comparison) -> dict[str, tuple[str, str, str]]:
    rows = GoldTask.objects.filter(task__comparison=comparison).select_related("task__query")
    return {g.task.query.external_id: (g.value, g.explanation, g.purpose) for g in rows}


def _nothing_stored() -> None:
    assert not GoldTask.objects.exists() and not SxsTask.objects.filter(gold=True).exists()


def test_a_csv_marks_its_tasks_gold_with_their_verdicts(comparison, personas):
    text = (
        "query,verdict,explanation,purpose\n"
        'q0,better,"on topic, fuller",\n'
        "q1,相同,,quiz\n"
        "\n"
        "q2,B,the candidate drops the answer,honeypot\n"
    )
    summary = import_sxs_gold(
        comparison=comparison, file=_file(text), manager=personas.manager, name="sxs.csv"
    )
    assert (summary.created, summary.updated, summary.lines) == (3, 0, 5)
    assert _gold(comparison) == {
        "q0": ("G", "on topic, fuller", "honeypot"),
        "q1": ("S", "", "quiz"),
        "q2": ("B", "the candidate drops the answer", "honeypot"),
    }
    assert set(
        SxsTask.objects.filter(comparison=comparison, gold=True).values_list(
            "query__external_id", flat=True
        )
    ) == {"q0", "q1", "q2"}
    assert GoldTask.objects.filter(manager=personas.manager).count() == 3


@pytest.mark.parametrize(
    ("word", "value"),
    [("G", "G"), ("good", "G"), ("Better", "G"), ("好", "G"), ("更好", "G"),
     ("s", "S"), ("same", "S"), ("同", "S"), ("一样", "S"),
     ("B", "B"), ("worse", "B"), ("bad", "B"), ("差", "B"), ("更差", "B")],
)  # fmt: skip
def test_verdicts_are_taken_in_the_apis_codes_english_and_chinese(comparison, word, value):
    import_sxs_gold(comparison=comparison, file=_file(f"{HEADER}q0,{word},\n"), name="v.csv")
    assert _gold(comparison)["q0"][0] == value


def test_the_import_marks_answered_and_gold_tasks_as_the_page_does(comparison, personas):
    """An answered task becomes gold with its answers flagged (the page does the same); a
    task already gold gets the file's verdict."""
    rater = personas.rater
    task = comparison.tasks.get(query__external_id="q0")
    TaskLease.objects.create(
        task=task, rater=rater, candidate_side="L", expires_at=timezone.now() + timedelta(minutes=5)
    )
    verdict_submit(rater=rater, comparison=comparison, task_id=task.pk, chosen="same")
    import_sxs_gold(comparison=comparison, file=_file(f"{HEADER}q1,G,\n"), name="a.csv")
    summary = import_sxs_gold(
        comparison=comparison, file=_file(f"{HEADER}q0,worse,x\nq1,same,y\n"), name="b.csv"
    )
    assert (summary.created, summary.updated) == (1, 1)
    assert _gold(comparison) == {"q0": ("B", "x", "honeypot"), "q1": ("S", "y", "honeypot")}
    assert Verdict.objects.get(task=task).gold
    assert SxsTask.objects.get(pk=task.pk).counted == 0


def test_a_per_position_comparison_needs_the_position(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(2), unit="position", depth=3)
    text = "query,position,verdict\nq0,2,G\nq1,3,B\n"
    import_sxs_gold(comparison=comparison, file=_file(text), name="p.csv")
    gold = {
        (g.task.query.external_id, g.task.position): g.value
        for g in GoldTask.objects.select_related("task__query")
    }
    assert gold == {("q0", 2): "G", ("q1", 3): "B"}
    with pytest.raises(ImportFailed) as failed:
        import_sxs_gold(comparison=comparison, file=_file(HEADER + "q0,G,\n"), name="p.csv")
    assert str(failed.value).startswith("p.csv:1: ") and "position" in str(failed.value)


PAGE_NO_TASK = "That comparison has no task for this query and position."
PAGE_IDENTICAL = "Both sides of this task are identical; it cannot be gold."


@pytest.mark.parametrize(
    ("text", "where", "why"),
    [
        (HEADER + "q0,G,\nq9,B,\n", "sxs.csv:3", PAGE_NO_TASK),
        (HEADER + "q0,G,\nq1,maybe,\n", "sxs.csv:3", "'maybe' is not a verdict"),
        (HEADER + "q0,G,\nq1,S,\nq0,B,\n", "sxs.csv:4", "earlier line"),
        (HEADER + "q0,G,\nsame,S,\n", "sxs.csv:3", PAGE_IDENTICAL),
        (HEADER + "q0,G,\nq1,S,\n" + f"q2,B,{'x' * 3000}\n", "sxs.csv:4", "explanation under"),
        ("query,verdict,purpose\nq0,G,\nq1,S,fun\n", "sxs.csv:3", "honeypot or quiz"),
        ("query,explanation\nq0,x\n", "sxs.csv:1", "verdict"),
        (HEADER + "q0,G\n", "sxs.csv:2", "fields"),
        ("query,verdict,position\nq0,G,1\n", "sxs.csv:2", PAGE_NO_TASK),
    ],
)
def test_a_bad_line_is_named_and_nothing_is_stored(comparison, text, where, why):
    with pytest.raises(ImportFailed) as failed:
        import_sxs_gold(comparison=comparison, file=_file(text), name="sxs.csv")
    assert str(failed.value).startswith(where + ": ") and why in str(failed.value)
    _nothing_stored()


def test_a_mirror_of_a_task_is_not_the_task(comparison, personas):
    """A rater's mirrored copy shares its task's query; gold goes to the task itself."""
    task = comparison.tasks.get(query__external_id="q0")
    SxsTask.objects.create(
        comparison=comparison,
        query=task.query,
        mirror_of=task,
        mirror_rater=personas.rater,
        mirror_side="R",
    )
    import_sxs_gold(comparison=comparison, file=_file(HEADER + "q0,G,\n"), name="m.csv")
    assert GoldTask.objects.get().task_id == task.pk


# The page


def _url(name: str) -> str:
    return reverse(f"annotate:{name}", kwargs={"slug": "campaign-a"})


def _upload(text: str, name: str = "sxs.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


def test_a_manager_imports_gold_tasks_on_the_page(comparison, personas):
    manager = personas.client_for("manager")
    page = manager.get(_url("manage_gold")).content.decode()
    assert 'data-testid="gold-task-import"' in page
    data = {"comparison": comparison.pk, "purpose": "quiz"}
    upload = _upload(HEADER + "q0,better,why not\nq2,差,\n")
    response = manager.post(_url("gold_task_import"), {**data, "file": upload}, follow=True)
    assert response.redirect_chain[-1][1] == 302
    assert "2 tasks are gold now." in response.content.decode()
    assert _gold(comparison) == {"q0": ("G", "why not", "quiz"), "q2": ("B", "", "quiz")}
    task = comparison.tasks.get(query__external_id="q0")
    assert f'data-task="{task.pk}"' in response.content.decode()


def test_a_bad_file_on_the_page_is_a_400_naming_the_line(comparison, personas):
    manager = personas.client_for("manager")
    upload = _upload(HEADER + "q0,G,\nsame,S,\n")
    data = {"comparison": comparison.pk, "purpose": "honeypot", "file": upload}
    response = manager.post(_url("gold_task_import"), data)
    assert response.status_code == 400
    assert f"sxs.csv:3: {PAGE_IDENTICAL}" in response.content.decode()
    _nothing_stored()
    other = make_comparison(
        personas.other_campaign, {"x0": (["x-a"], ["x-b"])}, name="theirs", min_queries=1
    )
    data = {"comparison": other.pk, "purpose": "honeypot", "file": _upload(HEADER + "x0,G,\n")}
    assert manager.post(_url("gold_task_import"), data).status_code == 400
    _nothing_stored()


def test_only_the_campaigns_manager_imports_gold_tasks(comparison, personas):
    for name in OTHERS:
        client = personas.client_for(name)
        upload = _upload(HEADER + "q0,G,\n")
        data = {"comparison": comparison.pk, "purpose": "honeypot", "file": upload}
        response = client.post(_url("gold_task_import"), data)
        if name == "anonymous":
            assert response.status_code == 302 and "login" in response["Location"]
        else:
            assert response.status_code == 404, name
    _nothing_stored()
