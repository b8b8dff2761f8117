"""TREC qrels export: aggregated grades rounded half up (or real), the rule named beside the file
(never inside it: trec_eval takes no comment lines), imported sources, and the round trip
import -> export."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.http import StreamingHttpResponse
from django.urls import reverse

from annotate.models import LabelSource, SourceLabel
from annotate.services.exports import format_real, round_half_up
from tests.annotate.judgment_data import document, grade, pool_item, query
from tests.conftest import PERSONA_NAMES

QRELS_URL = "annotate:export_qrels"


def url(**params) -> str:
    base = reverse(QRELS_URL, kwargs={"slug": "campaign-a"})
    return base + ("?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")


def body(response) -> str:
    assert isinstance(response, StreamingHttpResponse)
    return b"".join(response.streaming_content).decode()


@pytest.fixture
def judged(personas):
    """q1/d1: Good, Fair (mean 2.5, majority 2); q1/d2: Fair, Bad (mean 1.5, majority 1);
    q2/d3: Good, can't judge (3 by every rule); q2/d4: can't judge only (no line)."""
    c = personas.campaign
    raters = [get_user_model().objects.create_user(username=f"r{i}") for i in range(2)]
    for qid, did, labels in [
        ("q1", "d1", ["Good", "Fair"]),
        ("q1", "d2", ["Fair", "Bad"]),
        ("q2", "d3", ["Good", None]),
        ("q2", "d4", [None]),
    ]:
        item = pool_item(c, qid, did)
        for rater, label in zip(raters, labels, strict=False):
            grade(item, rater, label)
    return c


def add_source(campaign, name, rows):
    source = LabelSource.objects.create(campaign=campaign, name=name)
    for qid, did, g in rows:
        SourceLabel.objects.create(
            source=source, query=query(campaign, qid), document=document(campaign, did), grade=g
        )
    return source


# Rounding and number format ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (2.5, 3),
        (1.5, 2),
        (0.5, 1),
        (3.0, 3),
        (2.25, 2),
        (5 / 3, 2),
        (2.4999999999999996, 2),
        (0.49999999999999994, 0),
        (-0.5, 0),
        (-1.0, -1),
        (-1.5, -1),
    ],
)
def test_grades_round_half_up(value, expected):
    assert round_half_up(value) == expected


@pytest.mark.parametrize(
    ("value", "text"),
    [(3.0, "3"), (2.5, "2.5"), (5 / 3, "1.6666666666666667"), (0.1 + 0.2, "0.30000000000000004")],
)
def test_real_grades_are_written_exactly(value, text):
    assert format_real(value) == text
    assert float(text) == value


# The web download ----------------------------------------------------------------------------


def test_the_default_is_the_campaigns_rule_rounded_half_up(judged, personas):
    response = personas.client_for("manager").get(url())
    assert body(response) == "q1 0 d1 3\nq1 0 d2 2\nq2 0 d3 3\n"
    assert response["X-Aggregation"] == "mean"
    assert response["X-Grades"] == "whole grades, rounded half up"
    assert response["Content-Disposition"] == 'attachment; filename="campaign-a-qrels-mean.txt"'
    assert response["Content-Type"] == "text/plain; charset=utf-8"


def test_real_grades_on_request(judged, personas):
    response = personas.client_for("manager").get(url(real=1))
    assert body(response) == "q1 0 d1 2.5\nq1 0 d2 1.5\nq2 0 d3 3\n"
    assert response["X-Grades"] == "real grades"
    assert response["Content-Disposition"].endswith('filename="campaign-a-qrels-mean-real.txt"')


def test_the_rule_asked_for_is_used_and_named(judged, personas):
    response = personas.client_for("manager").get(url(aggregation="majority"))
    assert body(response) == "q1 0 d1 2\nq1 0 d2 1\nq2 0 d3 3\n"
    assert response["X-Aggregation"] == "majority"
    assert "a tie goes to the lower grade" in response["X-Aggregation-Note"]
    assert "can't-judge answers left out" in response["X-Aggregation-Note"]
    assert response["Content-Disposition"].endswith('filename="campaign-a-qrels-majority.txt"')


def test_the_body_has_no_comment_line(judged, personas):
    for rule in ("mean", "median", "majority"):
        text = body(personas.client_for("manager").get(url(aggregation=rule)))
        assert all(len(line.split()) == 4 for line in text.splitlines())


def test_an_imported_source_is_exported_as_imported(personas):
    add_source(
        personas.campaign, "team x", [("q1", "d1", 2.5), ("q1", "d2", 0.5), ("q2", "d1", -1)]
    )
    client = personas.client_for("manager")
    rounded = client.get(url(source="team%20x"))
    assert body(rounded) == "q1 0 d1 3\nq1 0 d2 1\nq2 0 d1 -1\n"
    assert rounded["X-Aggregation"] == "source"
    assert rounded["X-Label-Source"] == "team%20x"
    assert rounded["Content-Disposition"].endswith('filename="campaign-a-qrels-source-team-x.txt"')
    assert body(client.get(url(source="team%20x", real=1))) == (
        "q1 0 d1 2.5\nq1 0 d2 0.5\nq2 0 d1 -1\n"
    )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"aggregation": "mode"}, "unknown aggregation rule 'mode'"),
        ({"source": "nope"}, "no label source 'nope'"),
        ({"aggregation": "mean", "source": "x"}, "not both"),
        ({"real": "maybe"}, "real must be 1 or 0"),
    ],
)
def test_bad_parameters_get_a_400_with_a_message(judged, personas, params, message):
    response = personas.client_for("manager").get(url(**params))
    assert response.status_code == 400
    assert message in response.content.decode()


@pytest.mark.parametrize("name", PERSONA_NAMES)
def test_only_the_campaigns_manager_may_download_qrels(judged, personas, name):
    response = personas.client_for(name).get(url())
    if name == "manager":
        assert response.status_code == 200
    elif name == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
    else:
        assert response.status_code == 404


def test_the_campaign_page_links_the_downloads(personas):
    add_source(personas.campaign, "team x", [("q1", "d1", 1)])
    page = personas.client_for("manager").get(
        reverse("annotate:campaign", kwargs={"slug": "campaign-a"})
    )
    html = page.content.decode()
    assert 'id="exports"' in html
    assert 'action="/campaigns/campaign-a/export/qrels/"' in html
    assert "?source=team%20x&amp;real=1" in html
    assert "/campaigns/campaign-a/export/grades/?format=jsonl" in html
    assert "/campaigns/campaign-a/export/verdicts/?format=csv" in html


# The command ---------------------------------------------------------------------------------


def export(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("export_qrels", "--campaign", "campaign-a", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_command_writes_qrels_and_names_the_rule_on_stderr(judged):
    out, err = export("--aggregation", "median")
    assert out == "q1 0 d1 3\nq1 0 d2 2\nq2 0 d3 3\n"
    assert "aggregation=median" in err
    assert "mean of the two middle grades" in err
    assert "rounded half up" in err
    out, err = export("--real")
    assert out == "q1 0 d1 2.5\nq1 0 d2 1.5\nq2 0 d3 3\n"
    assert "aggregation=mean" in err and "real grades" in err


def test_the_command_writes_a_file(judged, tmp_path):
    target = tmp_path / "out.qrels"
    out, _ = export("--aggregation", "majority", "-o", str(target))
    assert out == ""
    assert target.read_text() == "q1 0 d1 2\nq1 0 d2 1\nq2 0 d3 3\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--source", "nope"], "no label source 'nope'"),
        (["--aggregation", "mean", "--source", "x"], "not allowed with argument"),
        (["--aggregation", "mode"], "invalid choice"),
    ],
)
def test_the_command_rejects_bad_input_without_a_traceback(judged, args, message):
    with pytest.raises(CommandError, match=message):
        export(*args)


def test_the_command_rejects_an_unknown_campaign(db):
    with pytest.raises(CommandError, match="no campaign with slug 'nope'"):
        call_command("export_qrels", "--campaign", "nope")


# Round trip: import qrels, export qrels, the same lines ------------------------------------

WHOLE_QRELS = """\
q1 0 d1 3
q1 0 d2 0
q1 0 d10 1
q2 0 d1 2
q2 0 é-doc 3
q2 0 d3 -1
"""
REAL_QRELS = "q1 0 d1 2.5\nq1 0 d2 0.25\nq2 0 d1 2\nq2 0 d3 0.1\n"


@pytest.fixture
def queries(personas):
    for qid in ("q1", "q2"):
        query(personas.campaign, qid)


@pytest.mark.parametrize(("text", "real"), [(WHOLE_QRELS, False), (REAL_QRELS, True)])
def test_round_trip_through_the_services(personas, queries, text, real):
    from annotate.services.imports import import_qrels

    import_qrels(
        campaign=personas.campaign,
        file=io.BytesIO(text.encode()),
        name="in.qrels",
        source_name="trec",
        strict_scale=False,
    )
    out, _ = export("--source", "trec", *(["--real"] if real else []))
    assert sorted(out.splitlines()) == sorted(text.splitlines())


def test_round_trip_through_the_command_line(personas, queries, tmp_path):
    source_file, target = tmp_path / "in.qrels", tmp_path / "out.qrels"
    source_file.write_text(WHOLE_QRELS, encoding="utf-8")
    call_command(
        "import_qrels",
        str(source_file),
        "--campaign",
        "campaign-a",
        "--source",
        "trec",
        "--any-grade",
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    export("--source", "trec", "-o", str(target))
    exported = target.read_text(encoding="utf-8")
    assert sorted(exported.splitlines()) == sorted(WHOLE_QRELS.splitlines())
    assert exported.endswith("\n")


def test_round_trip_of_grades_on_the_scale_through_the_web(personas, queries):
    from annotate.services.imports import import_qrels

    text = "q1 0 d1 3\nq1 0 d2 1\nq2 0 d1 2\n"
    import_qrels(campaign=personas.campaign, file=io.BytesIO(text.encode()), source_name="s")
    response = personas.client_for("manager").get(url(source="s"))
    assert sorted(body(response).splitlines()) == sorted(text.splitlines())
