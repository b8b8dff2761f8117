"""Raw grades and verdicts as CSV and JSONL: exact content for a small hand-built case, the
streaming response, the commands and who may download."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import pytest
from django.core.management import CommandError, call_command
from django.http import StreamingHttpResponse
from django.urls import reverse

from annotate.models import Comparison, Grade, SxsTask, Verdict
from tests.annotate.judgment_data import grade, make_run, pool_item, query
from tests.conftest import PERSONA_NAMES

T1 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
T2 = datetime(2026, 1, 2, 3, 5, 0, 250000, tzinfo=UTC)
T1_TEXT, T2_TEXT = "2026-01-02T03:04:05+00:00", "2026-01-02T03:05:00.250000+00:00"


@pytest.fixture
def grades(personas):
    c = personas.campaign
    grade(pool_item(c, "q1", "d1"), personas.rater, "Good", seconds=4.5, comment='ok, "fine"')
    grade(pool_item(c, "q1", "d2"), personas.manager, None)  # can't judge, no time, no comment
    grade(pool_item(c, "q1", "d1"), personas.manager, "Bad", seconds=12.0, comment="bad\nsnippet")
    # Another campaign's grade must not leak in.
    grade(pool_item(personas.other_campaign, "q1", "d1"), personas.other_rater, "Fair")
    Grade.objects.update(created_at=T1, changed_at=T2)


@pytest.fixture
def verdicts(personas):
    c = personas.campaign
    base = make_run(c, "prod", [("q1", "d1", 1, 1.0)])
    cand = make_run(c, "cand", [("q1", "d2", 1, 1.0)])
    comparison = Comparison.objects.create(
        campaign=c, name="prod vs cand", baseline=base, candidate=cand
    )
    per_position = Comparison.objects.create(
        campaign=c, name="per position", baseline=base, candidate=cand, unit="position"
    )
    q1 = query(c, "q1")
    Verdict.objects.create(
        task=SxsTask.objects.create(comparison=comparison, query=q1),
        rater=personas.rater,
        value="G",
        candidate_side="R",
        strength=2,
        reason="fresher, more relevant",
        seconds=12.0,
    )
    Verdict.objects.create(
        task=SxsTask.objects.create(comparison=per_position, query=q1, position=3),
        rater=personas.rater,
        value="B",
        candidate_side="L",
    )
    other_base = make_run(personas.other_campaign, "prod", [("q1", "d1", 1, 1.0)])
    other_cand = make_run(personas.other_campaign, "cand", [("q1", "d1", 1, 1.0)])
    other = Comparison.objects.create(
        campaign=personas.other_campaign, name="x", baseline=other_base, candidate=other_cand
    )
    Verdict.objects.create(
        task=SxsTask.objects.create(comparison=other, query=query(personas.other_campaign, "q1")),
        rater=personas.other_rater,
        value="S",
        candidate_side="L",
    )
    Verdict.objects.update(created_at=T1, changed_at=T2)


GRADES_CSV = (
    "campaign,query_id,doc_id,rater,label,grade,cant_judge,seconds,comment,created,changed\r\n"
    f'campaign-a,q1,d1,manager,Bad,1,false,12,"bad\nsnippet",{T1_TEXT},{T2_TEXT}\r\n'
    f'campaign-a,q1,d1,rater,Good,3,false,4.5,"ok, ""fine""",{T1_TEXT},{T2_TEXT}\r\n'
    f"campaign-a,q1,d2,manager,,,true,,,{T1_TEXT},{T2_TEXT}\r\n"
)
GRADES_JSONL = [
    {
        "campaign": "campaign-a",
        "query_id": "q1",
        "doc_id": "d1",
        "rater": "manager",
        "label": "Bad",
        "grade": 1.0,
        "cant_judge": False,
        "seconds": 12.0,
        "comment": "bad\nsnippet",
        "created": T1_TEXT,
        "changed": T2_TEXT,
    },
    {
        "campaign": "campaign-a",
        "query_id": "q1",
        "doc_id": "d1",
        "rater": "rater",
        "label": "Good",
        "grade": 3.0,
        "cant_judge": False,
        "seconds": 4.5,
        "comment": 'ok, "fine"',
        "created": T1_TEXT,
        "changed": T2_TEXT,
    },
    {
        "campaign": "campaign-a",
        "query_id": "q1",
        "doc_id": "d2",
        "rater": "manager",
        "label": None,
        "grade": None,
        "cant_judge": True,
        "seconds": None,
        "comment": "",
        "created": T1_TEXT,
        "changed": T2_TEXT,
    },
]
VERDICTS_CSV = (
    "campaign,comparison,query_id,position,rater,verdict,candidate_side,strength,reason,"
    "seconds,created,changed\r\n"
    f"campaign-a,per position,q1,3,rater,B,L,,,,{T1_TEXT},{T2_TEXT}\r\n"
    f'campaign-a,prod vs cand,q1,,rater,G,R,2,"fresher, more relevant",12,{T1_TEXT},{T2_TEXT}\r\n'
)
VERDICTS_JSONL = [
    {
        "campaign": "campaign-a",
        "comparison": "per position",
        "query_id": "q1",
        "position": 3,
        "rater": "rater",
        "verdict": "B",
        "candidate_side": "L",
        "strength": None,
        "reason": "",
        "seconds": None,
        "created": T1_TEXT,
        "changed": T2_TEXT,
    },
    {
        "campaign": "campaign-a",
        "comparison": "prod vs cand",
        "query_id": "q1",
        "position": None,
        "rater": "rater",
        "verdict": "G",
        "candidate_side": "R",
        "strength": 2,
        "reason": "fresher, more relevant",
        "seconds": 12.0,
        "created": T1_TEXT,
        "changed": T2_TEXT,
    },
]


def download(client, kind, **params):
    return client.get(reverse(f"annotate:export_{kind}", kwargs={"slug": "campaign-a"}), params)


def body(response) -> str:
    assert isinstance(response, StreamingHttpResponse)
    return b"".join(response.streaming_content).decode()


def test_grades_as_csv(personas, grades):
    response = download(personas.client_for("manager"), "grades")
    assert body(response) == GRADES_CSV
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="campaign-a-grades.csv"'


def test_grades_as_jsonl(personas, grades):
    response = download(personas.client_for("manager"), "grades", format="jsonl")
    lines = body(response).splitlines()
    assert [json.loads(line) for line in lines] == GRADES_JSONL
    assert lines[2] == (
        '{"campaign": "campaign-a", "query_id": "q1", "doc_id": "d2", "rater": "manager", '
        '"label": null, "grade": null, "cant_judge": true, "seconds": null, "comment": "", '
        f'"created": "{T1_TEXT}", "changed": "{T2_TEXT}"}}'
    )
    assert response["Content-Disposition"] == 'attachment; filename="campaign-a-grades.jsonl"'


def test_verdicts_as_csv_and_jsonl(personas, verdicts):
    client = personas.client_for("manager")
    assert body(download(client, "verdicts")) == VERDICTS_CSV
    jsonl = body(download(client, "verdicts", format="jsonl"))
    assert [json.loads(line) for line in jsonl.splitlines()] == VERDICTS_JSONL


def test_an_empty_campaign_gives_a_header_only(personas):
    client = personas.client_for("manager")
    assert body(download(client, "grades")) == GRADES_CSV.split("\r\n")[0] + "\r\n"
    assert body(download(client, "verdicts", format="jsonl")) == ""


def test_non_ascii_text_survives(personas):
    grade(pool_item(personas.campaign, "查询", "doc-é"), personas.rater, "Fair", comment="très 😀")
    text = body(download(personas.client_for("manager"), "grades"))
    assert ",查询,doc-é,rater,Fair,2,false,,très 😀," in text


@pytest.mark.parametrize("kind", ["grades", "verdicts"])
def test_an_unknown_format_gets_a_400(personas, kind):
    response = download(personas.client_for("manager"), kind, format="xml")
    assert response.status_code == 400
    assert "unknown format 'xml'" in response.content.decode()


@pytest.mark.parametrize("kind", ["grades", "verdicts"])
@pytest.mark.parametrize("name", PERSONA_NAMES)
def test_only_the_campaigns_manager_may_download(personas, grades, verdicts, kind, name):
    response = download(personas.client_for(name), kind)
    if name == "manager":
        assert response.status_code == 200
    elif name == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
    else:
        assert response.status_code == 404


# The commands --------------------------------------------------------------------------------


def run(command, *args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(command, "--campaign", "campaign-a", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_commands_write_the_same_text(personas, grades, verdicts):
    assert run("export_grades")[0] == GRADES_CSV
    out, err = run("export_grades", "--format", "jsonl")
    assert [json.loads(line) for line in out.splitlines()] == GRADES_JSONL
    assert "grades of campaign-a as jsonl" in err
    assert run("export_verdicts")[0] == VERDICTS_CSV


def test_the_commands_write_a_file(personas, grades, verdicts, tmp_path):
    target = tmp_path / "verdicts.csv"
    out, _ = run("export_verdicts", "-o", str(target))
    assert out == ""
    # Read back without newline translation: CSV rows end in \r\n.
    assert target.read_bytes().decode() == VERDICTS_CSV


@pytest.mark.parametrize("command", ["export_grades", "export_verdicts"])
def test_the_commands_reject_bad_input_without_a_traceback(personas, command, tmp_path):
    with pytest.raises(CommandError, match="invalid choice"):
        run(command, "--format", "xml")
    with pytest.raises(CommandError, match="no campaign with slug 'nope'"):
        call_command(command, "--campaign", "nope")
    with pytest.raises(CommandError, match="cannot write"):
        run(command, "-o", str(tmp_path / "missing-dir" / "out.csv"))
