"""Editing the label scale: the rules, each refused case changing nothing, and atomic saves."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotate.judging.graded import grade_submit, queue_items
from annotate.models import Campaign, Grade, Label
from annotate.services.scale import LabelSpec, ScaleInvalid, scale_save
from tests.annotate.queue_helpers import build_pool


def _scale(campaign) -> list[tuple]:
    return list(
        campaign.labels.order_by("position").values_list("name", "grade", "key", "position")
    )


def _post(personas, rows: list[dict], relevant_from: float = 2, *, follow: bool = False):
    """rows: dicts with name, grade, key and optionally id, order, delete (a formset row each)."""
    initial = sum(1 for row in rows if row.get("id"))
    data = {
        "labels-TOTAL_FORMS": len(rows),
        "labels-INITIAL_FORMS": initial,
        "relevant_from": relevant_from,
    }
    for i, row in enumerate(rows):
        data |= {
            f"labels-{i}-id": row.get("id", ""),
            f"labels-{i}-name": row["name"],
            f"labels-{i}-grade": row["grade"],
            f"labels-{i}-key": row["key"],
            f"labels-{i}-ORDER": row.get("order", i + 1),
        }
        if row.get("delete"):
            data[f"labels-{i}-DELETE"] = "on"
    url = reverse("annotate:manage_scale", kwargs={"slug": personas.campaign.slug})
    return personas.client_for("manager").post(url, data, follow=follow)


def _rows(campaign) -> list[dict]:
    return [
        {"id": x.pk, "name": x.name, "grade": x.grade, "key": x.key}
        for x in campaign.labels.order_by("position")
    ]


def _grade_with(personas, label_name: str) -> Grade:
    build_pool(personas.campaign, queries=1, docs_per_query=1)
    item = queue_items(rater=personas.rater, campaign=personas.campaign)[0]
    label = personas.campaign.labels.get(name=label_name)
    return grade_submit(
        rater=personas.rater, campaign=personas.campaign, item_id=item.pk, label_id=label.pk
    ).grade


def test_the_page_shows_the_scale_with_its_keys(personas):
    url = reverse("annotate:manage_scale", kwargs={"slug": personas.campaign.slug})
    html = personas.client_for("manager").get(url).content.decode()
    assert 'value="Good"' in html and 'value="G"' in html


def test_it_renames_reorders_rekeys_and_adds_in_one_save(personas):
    rows = _rows(personas.campaign)  # Good g 3, Fair f 2, Bad b 1
    rows[0] |= {"name": "Perfect", "order": 2}
    rows[1] |= {"key": "g", "order": 1}  # takes Good's key: swaps need the two-pass write
    rows[0] |= {"key": "p"}
    rows[2] |= {"order": 4}
    rows.append({"name": "Okay", "grade": 1.5, "key": "o", "order": 3})
    response = _post(personas, rows)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert _scale(personas.campaign) == [
        ("Fair", 2.0, "g", 0),
        ("Perfect", 3.0, "p", 1),
        ("Okay", 1.5, "o", 2),
        ("Bad", 1.0, "b", 3),
    ]


def test_it_swaps_grades_between_labels(personas):
    rows = _rows(personas.campaign)
    rows[0]["grade"], rows[2]["grade"] = 1, 3
    assert _post(personas, rows).status_code == 302
    assert [(n, g) for n, g, _, _ in _scale(personas.campaign)] == [
        ("Good", 1.0),
        ("Fair", 2.0),
        ("Bad", 3.0),
    ]


def test_an_empty_extra_row_adds_nothing(personas):
    rows = [*_rows(personas.campaign), {"name": "", "grade": "", "key": "", "order": ""}]
    before = _scale(personas.campaign)
    assert _post(personas, rows).status_code == 302
    assert _scale(personas.campaign) == before


def test_it_deletes_an_unused_label(personas):
    rows = _rows(personas.campaign)
    rows[1]["delete"] = True
    assert _post(personas, rows).status_code == 302
    assert [n for n, _, _, _ in _scale(personas.campaign)] == ["Good", "Bad"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: rows[1].update(key="g"), "have the same key G"),
        (lambda rows: rows[1].update(key="S"), "S skips an item"),
        (lambda rows: rows[1].update(key="x"), "X marks an item as can"),
        (lambda rows: rows[1].update(key="?"), "? opens the help"),
        (lambda rows: rows[1].update(key="2"), "number keys 1..n"),
        (lambda rows: rows[1].update(key="é"), "single letter from A to Z"),
        (lambda rows: rows[1].update(key="ff"), "single letter from A to Z"),
        (lambda rows: rows[1].update(grade=3), "have the same grade 3"),
        (lambda rows: rows[1].update(name="renamed TOO"), "Two labels are named"),
        (lambda rows: [rows[1].update(delete=True), rows[2].update(delete=True)], "at least 2"),
        (lambda rows: rows[1].update(grade="abc"), "Enter a number"),
        (lambda rows: rows[1].update(grade="nan"), "Enter a number"),
        (lambda rows: rows[1].update(name=""), "required"),
    ],
)
def test_it_refuses_a_broken_scale_and_changes_nothing(personas, edit, message):
    before = _scale(personas.campaign)
    rows = _rows(personas.campaign)
    rows[0]["name"] = "Renamed too"  # a valid change in the same save must not be written
    edit(rows)
    response = _post(personas, rows)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert _scale(personas.campaign) == before


@pytest.mark.parametrize("relevant_from", [0.5, 3.5])
def test_relevant_from_must_lie_within_the_scale(personas, relevant_from):
    response = _post(personas, _rows(personas.campaign), relevant_from=relevant_from)
    assert response.status_code == 400
    assert "must be a grade of the scale or lie between" in response.content.decode()
    assert Campaign.objects.get(pk=personas.campaign.pk).relevant_from == 2


def test_relevant_from_may_lie_between_two_grades(personas):
    assert _post(personas, _rows(personas.campaign), relevant_from=2.5).status_code == 302
    assert Campaign.objects.get(pk=personas.campaign.pk).relevant_from == 2.5


def test_it_refuses_to_delete_a_label_that_has_grades(personas):
    _grade_with(personas, "Fair")
    before = _scale(personas.campaign)
    rows = _rows(personas.campaign)
    rows[1]["delete"] = True
    response = _post(personas, rows)
    assert response.status_code == 400
    assert "“Fair” cannot be deleted: 1 grade(s) use it" in response.content.decode()
    assert _scale(personas.campaign) == before


def test_changing_a_used_labels_grade_is_saved_with_a_warning(personas):
    grade = _grade_with(personas, "Fair")
    rows = _rows(personas.campaign)
    rows[1]["grade"] = 2.5
    response = _post(personas, rows, follow=True)
    assert response.redirect_chain[0][1] == 302
    page = response.content.decode()
    assert "1 grade(s) given as “Fair” now count as 2.5 (was 2)" in page
    grade.refresh_from_db()
    assert grade.label.grade == 2.5


def test_a_stale_form_is_refused(personas):
    rows = _rows(personas.campaign)[:2]  # a label added since the page loaded is missing
    rows.append({"name": "New", "grade": 0, "key": "n"})
    response = _post(personas, rows)
    assert response.status_code == 400
    assert "changed since this page was loaded" in response.content.decode()


def test_a_label_of_another_campaign_cannot_be_edited(personas):
    rows = _rows(personas.campaign)
    foreign = personas.other_campaign.labels.first()
    rows.append({"id": foreign.pk, "name": "Hijack", "grade": 9, "key": "h"})
    assert _post(personas, rows).status_code == 400
    assert Label.objects.get(pk=foreign.pk).name == foreign.name


def test_scale_save_is_atomic_when_the_database_refuses(personas, monkeypatch):
    """A failure half way (here: the final bulk_create) leaves the old scale in place."""
    from annotate.services import scale

    before = _scale(personas.campaign)
    specs = [
        LabelSpec(id=x.pk, name=f"{x.name}!", grade=x.grade, key=x.key)
        for x in personas.campaign.labels.all()
    ] + [LabelSpec(name="Extra", grade=0, key="e")]

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(scale.Label.objects, "bulk_create", boom)
    with pytest.raises(RuntimeError):
        scale_save(campaign=personas.campaign, labels=specs, relevant_from=2)
    assert _scale(personas.campaign) == before


def test_scale_save_reports_every_problem_at_once(personas):
    specs = [LabelSpec(name="A", grade=1, key="s")]
    with pytest.raises(ScaleInvalid) as info:
        scale_save(campaign=personas.campaign, labels=specs, relevant_from=2)
    # The three existing labels are missing from the submission: that alone is reported.
    assert "reload" in info.value.messages[0]


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"labels-TOTAL_FORMS": "500", "labels-INITIAL_FORMS": "3", "relevant_from": "2"},
        {"labels-TOTAL_FORMS": "x", "labels-INITIAL_FORMS": "y"},
    ],
)
def test_a_tampered_or_missing_formset_is_a_400_not_a_500(personas, data):
    before = _scale(personas.campaign)
    url = reverse("annotate:manage_scale", kwargs={"slug": personas.campaign.slug})
    response = personas.client_for("manager").post(url, data)
    assert response.status_code == 400
    assert _scale(personas.campaign) == before


def test_it_refuses_to_delete_a_label_that_is_a_gold_answer(personas):
    """A gold item's label (and its ruling) holds the label: a 400 with a message, not a 500."""
    from annotate.services.gold import gold_item_set

    items = build_pool(personas.campaign, queries=1, docs_per_query=1)
    fair = personas.campaign.labels.get(name="Fair")
    gold_item_set(campaign=personas.campaign, manager=None, item_id=items[0].pk, label_id=fair.pk)
    before = _scale(personas.campaign)
    rows = _rows(personas.campaign)
    rows[1]["delete"] = True
    response = _post(personas, rows)
    assert response.status_code == 400
    assert "“Fair” cannot be deleted" in response.content.decode()
    assert _scale(personas.campaign) == before
