"""Data values that once crashed the reports: a run name matplotlib read as mathtext, and a
grade whose exponential gain overflows a float."""

from __future__ import annotations

import io

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse

from annotate.models import Label, LabelSource, SourceLabel
from annotate.services.imports import ImportFailed
from annotate.services.imports.qrels import import_qrels
from metrics.core import kernels
from tests.api.conftest import api_client_for
from tests.metrics.report_helpers import make_world

MATH_NAME = r"$\foo$ cand"


@pytest.fixture
def world(personas):
    return make_world(personas.campaign, run_names=(MATH_NAME, "beta"), missing=None)


def test_report_pages_draw_a_run_named_like_mathtext(personas, world):
    client = personas.client_for("manager")
    query = world.queries[0]
    kwargs = {"slug": "campaign-a"}
    pages = [
        reverse("metrics:systems", kwargs=kwargs),
        reverse("metrics:compare", kwargs=kwargs),
        reverse("metrics:queries", kwargs=kwargs),
        reverse("metrics:query", kwargs={**kwargs, "query_id": query.pk}),
        reverse("metrics:sources", kwargs=kwargs),
    ]
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, (page, response.content[:300])
    systems = client.get(pages[0]).content.decode()
    # The name is drawn as the text it is, in the chart too (not as math).
    assert systems.count("$\\foo$ cand") >= 2


def test_scores_api_answers_for_a_run_named_like_mathtext(personas, world):
    client = api_client_for(personas, "manager")
    response = client.get("/api/v1/campaigns/campaign-a/scores/")
    assert response.status_code == 200, response.content[:300]
    assert MATH_NAME in {row["run"] for row in response.json()["systems"]}


def test_a_label_source_named_like_mathtext_shows_on_the_sources_page(personas, world):
    qrels = io.BytesIO(b"q01 0 q01-d0 3\n")
    import_qrels(campaign=personas.campaign, file=qrels, source_name=r"$\bar$ src", name="q.txt")
    response = personas.client_for("manager").get(
        reverse("metrics:sources", kwargs={"slug": "campaign-a"})
    )
    assert response.status_code == 200
    assert "$\\bar$ src" in response.content.decode()


@pytest.mark.parametrize("grade", ["1e308", "1024", "-1e308", "1001"])
def test_qrels_with_any_grade_refuse_a_grade_beyond_the_bound(personas, world, grade):
    qrels = io.BytesIO(f"q01 0 q01-d0 3\nq01 0 q01-d1 {grade}\n".encode())
    with pytest.raises(ImportFailed) as caught:
        import_qrels(
            campaign=personas.campaign,
            file=qrels,
            source_name="team",
            name="q.txt",
            strict_scale=False,
        )
    assert str(caught.value).startswith("q.txt:2: grade")
    assert not LabelSource.objects.filter(name="team").exists()
    assert not SourceLabel.objects.exists()


def test_qrels_with_any_grade_keep_a_large_grade_within_the_bound(personas, world):
    qrels = io.BytesIO(b"q01 0 q01-d0 1000\n")
    import_qrels(
        campaign=personas.campaign, file=qrels, source_name="team", name="q.txt", strict_scale=False
    )
    assert SourceLabel.objects.get().grade == 1000


@pytest.mark.parametrize(
    ("grades", "gain"),
    [([1e308], "exponential"), ([1024.0], "exponential"), ([1e308, 1e308], "linear")],
)
def test_the_gain_kernel_refuses_rather_than_overflow(grades, gain):
    with pytest.raises(ValueError, match="too large"):
        kernels.gain_values(np.array(grades), gain)


def test_the_gain_kernel_keeps_large_finite_gains():
    # 2^1023 - 1 is a float; a single one adds up without overflow (hand-derived: 2.0**1023).
    out = kernels.gain_values(np.array([1023.0, -1.0]), "exponential")
    assert out[0] == 2.0**1023 and out[1] == 0.0


def test_err_refuses_a_top_grade_whose_power_overflows():
    one = np.array([1.0])
    with pytest.raises(ValueError, match="too large"):
        kernels.err_at(one, np.array([0]), np.array([0]), 1, (1,), max_grade=1e308)


@pytest.mark.parametrize("grade", [1e308, -1001.0])
def test_a_label_scale_grade_beyond_the_bound_is_refused(personas, grade):
    from annotate.services.scale import LabelSpec, ScaleInvalid, scale_save

    campaign = personas.campaign
    labels = [
        LabelSpec(id=x.pk, name=x.name, grade=x.grade, key=x.key) for x in campaign.labels.all()
    ]
    labels[0] = LabelSpec(id=labels[0].id, name=labels[0].name, grade=grade, key=labels[0].key)
    with pytest.raises(ScaleInvalid) as caught:
        scale_save(campaign=campaign, labels=labels, relevant_from=2.0)
    assert "must lie between -1,000 and 1,000" in str(caught.value.args[0])
    assert sorted(campaign.labels.values_list("grade", flat=True)) == [1.0, 2.0, 3.0]


# Grades stored before grades were bounded (a scale saved, or qrels imported, earlier): the
# score pages say which grade and where to look (409), the API a JSON 400, never a 500.


def _pages(world) -> list[str]:
    kwargs = {"slug": "campaign-a"}
    return [
        reverse("metrics:systems", kwargs=kwargs),
        reverse("metrics:compare", kwargs=kwargs),
        reverse("metrics:queries", kwargs=kwargs),
        reverse("metrics:query", kwargs={**kwargs, "query_id": world.queries[0].pk}),
        reverse("metrics:sources", kwargs=kwargs),
    ]


def _store_top_grade(campaign, grade: float) -> Label:
    top = campaign.labels.order_by("-grade").first()
    Label.objects.filter(pk=top.pk).update(grade=grade)  # past scale_save's bound, as of old
    return top


# 1e308: the linear gains add up to more than a float (every page). 5,000: ERR's 2^5000 is no
# float (the four score pages; the sources page computes no ERR).
@pytest.mark.parametrize(("grade", "shown", "pages"), [(1e308, "1e+308", 5), (5000.0, "5000", 4)])
def test_a_stored_grade_beyond_the_bound_gives_a_clear_page_not_a_500(
    personas, world, grade, shown, pages
):
    _store_top_grade(personas.campaign, grade)
    client = personas.client_for("manager")
    for page in _pages(world)[:pages]:
        response = client.get(page)
        assert response.status_code == 409, (page, response.status_code)
        text = response.content.decode()
        assert f"A stored grade ({shown}) is too large to score" in text, page
        assert "between -1,000 and 1,000" in text and "oversized_text" in text
    api = api_client_for(personas, "manager")
    response = api.get("/api/v1/campaigns/campaign-a/scores/")
    assert response.status_code == 400 and "too large" in response.json()["detail"]


def test_oversized_text_lists_the_grades_beyond_the_bound(personas, world):
    top = _store_top_grade(personas.campaign, 5000.0)
    import_qrels(
        campaign=personas.campaign,
        file=io.BytesIO(b"q01 0 q01-d0 3\nq01 0 q01-d1 1000\n"),
        source_name="team",
        name="q.txt",
        strict_scale=False,
    )
    SourceLabel.objects.filter(grade=3).update(grade=-1e308)
    out, err = io.StringIO(), io.StringIO()
    call_command("oversized_text", stdout=out, stderr=err)
    assert out.getvalue().splitlines() == [
        f"campaign-a\tlabel\t{top.name}\tgrade\t5000\tlimit ±1,000",
        "campaign-a\tsource label\tteam: q01/q01-d0\tgrade\t-1e+308\tlimit ±1,000",
    ]
    assert err.getvalue().strip() == "2 value(s) above the limits."
