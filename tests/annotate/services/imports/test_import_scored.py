"""Seed 004's ``label qid score`` format: a run and a label source at once."""

from __future__ import annotations

import pytest

from annotate.models import Document, LabelSource, Query, Run, RunEntry, SourceLabel
from annotate.services.imports import ImportFailed, import_scored, scored_document_id
from tests.annotate.import_support import add_queries, counts, make_campaign, write


@pytest.fixture
def campaign(db):
    campaign = make_campaign()
    add_queries(campaign, "q1")
    return campaign


# q1 is on lines 1, 2, 4, 6 and q2 on lines 3, 5: a query's lines need not be together.
# Lines 2 and 4 tie on 0.5, lines 3 and 5 on 0.7: ties keep file order, as the seed's
# stable sort does.
SCORED = "3 q1 0.9\n1 q1 0.5\n2 q2 0.7\n2\tq1\t0.5\n1 q2 0.7\n3 q1 0.95\n"


def test_document_ids_count_down_so_that_ties_keep_file_order():
    assert scored_document_id("q1", 1) == "q1:999999999"
    assert scored_document_id("q1", 2) == "q1:999999998"
    assert scored_document_id("q1", 2) < scored_document_id("q1", 1)


def test_it_imports_a_run_and_a_label_source_at_once(campaign, tmp_path):
    summary = import_scored(campaign=campaign, file=write(tmp_path, "s.txt", SCORED), name="seed4")
    assert (summary.created, summary.queries_created, summary.placeholders) == (6, 1, 6)
    assert (summary.runs, summary.source) == (["seed4"], "seed4")
    assert any("1 queries were not in the campaign" in w for w in summary.warnings)
    run = Run.objects.get(campaign=campaign, name="seed4")
    assert run.system.name == "seed4"
    got = {
        (e.query.external_id, e.document.external_id): (e.rank, e.score)
        for e in RunEntry.objects.filter(run=run).select_related("query", "document")
    }
    line = scored_document_id
    assert got == {
        ("q1", line("q1", 6)): (1, 0.95),
        ("q1", line("q1", 1)): (2, 0.9),
        ("q1", line("q1", 2)): (3, 0.5),
        ("q1", line("q1", 4)): (4, 0.5),
        ("q2", line("q2", 3)): (1, 0.7),
        ("q2", line("q2", 5)): (2, 0.7),
    }
    source = LabelSource.objects.get(campaign=campaign, name="seed4")
    assert {
        (lab.document.external_id, lab.grade) for lab in SourceLabel.objects.filter(source=source)
    } == {
        (line("q1", 1), 3.0),
        (line("q1", 2), 1.0),
        (line("q2", 3), 2.0),
        (line("q1", 4), 2.0),
        (line("q2", 5), 1.0),
        (line("q1", 6), 3.0),
    }
    # The query that existed keeps its text; the new one gets its id as text.
    assert Query.objects.get(external_id="q1").text == "text of q1"
    assert Query.objects.get(external_id="q2").text == "q2"
    doc = Document.objects.get(external_id=line("q2", 5))
    assert (doc.title, doc.extra["line"], doc.is_placeholder) == ("q2, line 5", 5, True)


def test_the_project_order_matches_the_stored_ranks(campaign, tmp_path):
    """Score descending, then document id descending (DESIGN.md section 4) gives the ranks."""
    import_scored(campaign=campaign, file=write(tmp_path, "s", SCORED), name="r")
    for qid in ("q1", "q2"):
        ordered = RunEntry.objects.filter(run__name="r", query__external_id=qid).order_by(
            "-score", "-document__external_id"
        )
        assert [e.rank for e in ordered] == list(range(1, ordered.count() + 1))


def test_it_takes_a_system_and_a_source_name(campaign, tmp_path):
    import_scored(
        campaign=campaign,
        file=write(tmp_path, "s", SCORED),
        name="r",
        system="competitor",
        source_name="their labels",
    )
    assert Run.objects.get(name="r").system.name == "competitor"
    assert LabelSource.objects.get(name="their labels").labels.count() == 6


def test_any_grade_takes_labels_off_the_scale(campaign, tmp_path):
    import_scored(
        campaign=campaign,
        file=write(tmp_path, "s", "0 q1 1.0\n4 q1 2.0\n"),
        name="r",
        strict_scale=False,
    )
    assert sorted(SourceLabel.objects.values_list("grade", flat=True)) == [0.0, 4.0]


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("3 q1", "too few columns: expected 3 (label qid score), found 2"),
        ("3 q1 0.5 extra", "too many columns"),
        ("good q1 0.5", "label 'good' is not a number"),
        ("5 q1 0.5", "label 5 is not on the label scale (1, 2, 3)"),
        ("3 q1 abc", "score 'abc' is not a number"),
        ("3 q1 inf", "score 'inf' is not a number"),
    ],
)
def test_it_rejects_a_bad_line_and_writes_nothing(campaign, tmp_path, bad_line, message):
    before = counts()
    with pytest.raises(ImportFailed) as caught:
        import_scored(
            campaign=campaign,
            file=write(tmp_path, "s", f"3 q1 0.9\n1 q9 0.5\n{bad_line}\n"),
            name="r",
            filename="seed.txt",
        )
    assert str(caught.value).startswith("seed.txt:3: ")
    assert message in str(caught.value)
    assert counts() == before


def test_an_existing_run_name_is_an_error(campaign, tmp_path):
    import_scored(campaign=campaign, file=write(tmp_path, "s", SCORED), name="r")
    before = counts()
    with pytest.raises(ImportFailed, match="run 'r' already exists"):
        import_scored(campaign=campaign, file=write(tmp_path, "s", SCORED), name="r")
    assert counts() == before


def test_it_works_where_the_database_cannot_return_new_keys(campaign, tmp_path, monkeypatch):
    from django.db import connection

    monkeypatch.setattr(type(connection.features), "can_return_rows_from_bulk_insert", False)
    summary = import_scored(campaign=campaign, file=write(tmp_path, "s", SCORED), name="r")
    assert (summary.created, summary.queries_created, summary.placeholders) == (6, 1, 6)
    entry = RunEntry.objects.get(document__external_id=scored_document_id("q2", 5))
    assert (entry.query.external_id, entry.rank, entry.score) == ("q2", 2, 0.7)
