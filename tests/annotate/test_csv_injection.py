"""Every CSV the app writes neutralises spreadsheet formulas (OWASP "CSV injection"): a text
cell starting with =, +, -, @, tab or carriage return gets a leading apostrophe; numbers stay
numbers."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotate.models import Document, Grade
from annotate.safecsv import safe_cell
from tests.annotate.judgment_data import grade, make_run, pool_item
from tests.api.conftest import api_client_for

HOSTILE = ["=1+1", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1", "\r=1", '=HYPERLINK("x")']


def _rows(response) -> list[list[str]]:
    raw = (
        b"".join(response.streaming_content) if response.streaming else response.content
    ).decode()
    return list(csv.reader(io.StringIO(raw)))


def _cells(rows: list[list[str]]) -> list[str]:
    return [cell for row in rows for cell in row]


@pytest.mark.parametrize("text", HOSTILE)
def test_safe_cell_prefixes_formula_text(text):
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("value", ["-0.25", "+3", "1e-05", "-1E+300", "-inf", 7, -0.25, None, ""])
def test_safe_cell_keeps_numbers_and_plain_values(value):
    assert safe_cell(value) == value


@pytest.fixture
def hostile_grades(personas):
    c = personas.campaign
    for i, comment in enumerate(HOSTILE):
        grade(pool_item(c, "q1", f"d{i}"), personas.rater, "Good", comment=comment)
    return c


def _no_formula_cells(cells: list[str]) -> None:
    for cell in cells:
        assert not (cell[:1] in set("=+-@\t\r") and not _is_number(cell)), cell


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_web_grade_export_neutralises_comments(personas, hostile_grades):
    url = reverse("annotate:export_grades", kwargs={"slug": "campaign-a"})
    rows = _rows(personas.client_for("manager").get(url))
    comments = [row[8] for row in rows[1:]]
    assert sorted(comments) == sorted("'" + h for h in HOSTILE)
    _no_formula_cells(_cells(rows))


def test_api_grades_csv_neutralises_comments(personas, hostile_grades):
    client = api_client_for(personas, "manager")
    rows = _rows(client.get("/api/v1/grades/", {"format": "csv"}))
    _no_formula_cells(_cells(rows))
    assert "'=1+1" in _cells(rows)


def test_api_table_csv_neutralises_extra_fields(personas):
    Document.objects.create(
        campaign=personas.campaign, external_id="d1", title="=cmd", extra={"note": "@x"}
    )
    client = api_client_for(personas, "manager")
    rows = _rows(client.get("/api/v1/documents/", {"format": "csv"}))
    cells = _cells(rows)
    _no_formula_cells(cells)
    assert "'=cmd" in cells and "'@x" in cells


def test_report_csv_neutralises_a_run_name_and_keeps_scores_numeric(personas):
    c = personas.campaign
    make_run(c, "=evil()", [("q1", "d1", 1, 1.0)])
    item = pool_item(c, "q1", "d1")
    grade(item, personas.rater, "Good")
    url = reverse("metrics:systems", kwargs={"slug": "campaign-a"})
    response = personas.client_for("manager").get(url, {"download": "systems"})
    assert response.status_code == 200, response.content[:500]
    cells = _cells(_rows(response))
    _no_formula_cells(cells)
    assert any(cell.startswith("'=evil()") for cell in cells)


def test_export_gsb_command_neutralises(personas, monkeypatch):
    import annotate.management.commands.export_gsb as command

    monkeypatch.setattr(command, "gsb_cli_rows", lambda found: ([["name", "=1+1"]], []))
    from tests.annotate.sxs_helpers import make_comparison

    make_comparison(personas.campaign, {"s1": (["a"], ["b"])}, name="cmp")
    out = io.StringIO()
    call_command("export_gsb", "--campaign", "campaign-a", "--comparison", "cmp", stdout=out)
    assert out.getvalue() == "name,'=1+1\n"
    assert Grade.objects.count() == 0


# The project's code, where a CSV writer could be made.
PACKAGES = ("annotate", "metrics", "llmjudge", "jobs", "config")
# A call of csv's writers, or an import of them under another name (prose naming them is fine).
RAW_WRITER = re.compile(
    r"\bcsv\.(writer|DictWriter)\(|^\s*from csv import .*\b(writer|DictWriter)\b"
)


def test_no_csv_is_written_but_through_the_safe_module():
    """Every CSV goes through annotate.safecsv, so a new export cannot forget the formulas."""
    root = Path(__file__).resolve().parents[2]
    found = [
        f"{path.relative_to(root)}:{n}"
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
        if path != root / "annotate" / "safecsv.py"
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if RAW_WRITER.search(line.split("#", 1)[0])
    ]
    assert found == [], found
