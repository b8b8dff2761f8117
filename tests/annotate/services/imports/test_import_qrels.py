"""TREC qrels imports: a named label source, the label scale check, bad lines, atomicity."""

from __future__ import annotations

import pytest

from annotate.models import Document, LabelSource, SourceLabel
from annotate.services.imports import ImportFailed, import_qrels
from tests.annotate.import_support import add_documents, add_queries, counts, make_campaign, write


@pytest.fixture
def campaign(db):
    campaign = make_campaign()
    add_queries(campaign, "q1", "q2")
    add_documents(campaign, "d1", "d2")
    return campaign


def labels(source: LabelSource) -> set[tuple[str, str, float]]:
    return {
        (label.query.external_id, label.document.external_id, label.grade)
        for label in SourceLabel.objects.filter(source=source)
    }


def test_it_stores_qrels_as_a_named_label_source(campaign, tmp_path):
    path = write(tmp_path, "team.qrels", "q1 0 d1 3\nq1 0 d9 1\n\nq2\t0\td2\t2\nq2 0 d1 -1\n")
    summary = import_qrels(campaign=campaign, file=path, source_name="other team")
    assert (summary.created, summary.placeholders, summary.skipped, summary.lines) == (4, 1, 1, 5)
    source = LabelSource.objects.get(campaign=campaign, name="other team")
    assert source.kind == "imported"
    assert labels(source) == {
        ("q1", "d1", 3.0),
        ("q1", "d9", 1.0),
        ("q2", "d2", 2.0),
        ("q2", "d1", -1.0),  # negative: pooled, not judged (trec_eval); allowed on any scale
    }
    assert Document.objects.get(external_id="d9").is_placeholder


def test_any_grade_accepts_real_and_off_scale_grades(campaign, tmp_path):
    path = write(tmp_path, "real.qrels", "q1 0 d1 2.5\nq1 0 d2 0\nq2 0 d1 4\n")
    import_qrels(campaign=campaign, file=path, source_name="mean", strict_scale=False)
    assert labels(LabelSource.objects.get(name="mean")) == {
        ("q1", "d1", 2.5),
        ("q1", "d2", 0.0),
        ("q2", "d1", 4.0),
    }
    assert LabelSource.objects.get(name="mean").params["any_grade"] is True


def test_the_kind_of_source_is_kept(campaign, tmp_path):
    path = write(tmp_path, "clicks.qrels", "q1 0 d1 1\n")
    import_qrels(campaign=campaign, file=path, source_name="clicks", kind="clicks")
    assert LabelSource.objects.get(name="clicks").kind == "clicks"


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("q1 0 d2", "too few columns: expected 4 (qid iter docno grade), found 3"),
        ("q1 0 d2 1 x", "too many columns"),
        ("q1 0 d2 good", "grade 'good' is not a number"),
        ("q1 0 d2 NaN", "grade 'NaN' is not a number"),
        ("q1 0 d2 inf", "grade 'inf' is not a number"),
        ("q1 0 d2 2.5", "grade 2.5 is not on the label scale (1, 2, 3)"),
        ("q1 0 d2 0", "grade 0 is not on the label scale (1, 2, 3)"),
        ("q7 0 d2 1", "query 'q7' is not in this campaign"),
        ("q1 0 d1 2", "query 'q1' and document 'd1' already have a grade at line 1"),
    ],
)
def test_it_rejects_a_bad_line_and_writes_nothing(campaign, tmp_path, bad_line, message):
    before = counts()
    content = f"q1 0 d1 3\nq2 0 new 1\n{bad_line}\nq2 0 d2 1\n"
    with pytest.raises(ImportFailed) as caught:
        import_qrels(
            campaign=campaign, file=write(tmp_path, "x", content), source_name="s", name="x.qrels"
        )
    assert caught.value.line == 3
    assert str(caught.value).startswith("x.qrels:3: ")
    assert message in str(caught.value)
    assert counts() == before


def test_the_scale_message_tells_how_to_keep_other_grades(campaign, tmp_path):
    with pytest.raises(ImportFailed) as caught:
        import_qrels(campaign=campaign, file=write(tmp_path, "q", "q1 0 d1 4\n"), source_name="s")
    assert "--any-grade" in str(caught.value)


def test_an_existing_source_name_is_an_error_unless_replaced(campaign, tmp_path):
    import_qrels(campaign=campaign, file=write(tmp_path, "a", "q1 0 d1 3\n"), source_name="s")
    source_pk = LabelSource.objects.get(name="s").pk
    path = write(tmp_path, "b", "q2 0 d2 1\n")
    with pytest.raises(ImportFailed) as caught:
        import_qrels(campaign=campaign, file=path, source_name="s", name="b")
    assert str(caught.value).startswith("b: label source 's' already exists")
    assert caught.value.line is None
    import_qrels(campaign=campaign, file=path, source_name="s", replace=True)
    source = LabelSource.objects.get(name="s")
    assert source.pk == source_pk
    assert labels(source) == {("q2", "d2", 1.0)}


def test_a_repeat_in_a_later_batch_rolls_back_every_batch(campaign, tmp_path):
    add_queries(campaign, *(f"b{i}" for i in range(5_200)))
    before = counts()
    lines = [f"b{i} 0 doc{i} 1" for i in range(5_200)] + ["b3 0 doc3 2"]
    with pytest.raises(ImportFailed) as caught:
        import_qrels(
            campaign=campaign, file=write(tmp_path, "q", "\n".join(lines)), source_name="s"
        )
    assert caught.value.line == 5_201
    assert "already have a grade at an earlier line" in str(caught.value)
    assert counts() == before
