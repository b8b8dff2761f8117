"""Query imports: TSV and JSONL, updates, and every kind of bad line."""

from __future__ import annotations

import io

import pytest

from annotate.models import Query
from annotate.services.imports import ImportFailed, import_queries
from tests.annotate.import_support import counts, make_campaign, write


@pytest.fixture
def campaign(db):
    return make_campaign()


def stored(campaign) -> dict[str, tuple[str, str]]:
    return {q.external_id: (q.text, q.description) for q in Query.objects.filter(campaign=campaign)}


def test_it_imports_tsv_with_optional_description(campaign, tmp_path):
    path = write(
        tmp_path,
        "queries.tsv",
        "q1\twireless headphones\n\nq2\trunning shoes\tthe user wants to buy shoes\n",
    )
    summary = import_queries(campaign=campaign, file=path)
    assert (summary.created, summary.updated, summary.skipped, summary.lines) == (2, 0, 1, 3)
    assert stored(campaign) == {
        "q1": ("wireless headphones", ""),
        "q2": ("running shoes", "the user wants to buy shoes"),
    }


def test_it_imports_jsonl_with_either_key_names(campaign, tmp_path):
    path = write(
        tmp_path,
        "queries.jsonl",
        '{"id": "q1", "text": "cheap flights", "description": "travel"}\n'
        '{"qid": 7, "query": "weather tomorrow", "intent": "forecast"}\n',
    )
    summary = import_queries(campaign=campaign, file=path)
    assert summary.created == 2
    assert stored(campaign) == {
        "q1": ("cheap flights", "travel"),
        "7": ("weather tomorrow", "forecast"),
    }


def test_it_detects_jsonl_by_content_when_the_extension_says_nothing(campaign, tmp_path):
    path = write(tmp_path, "queries", '{"id": "q1", "text": "a"}\n')
    import_queries(campaign=campaign, file=path)
    assert stored(campaign) == {"q1": ("a", "")}


def test_it_updates_an_existing_query_instead_of_duplicating_it(campaign, tmp_path):
    import_queries(campaign=campaign, file=write(tmp_path, "a.tsv", "q1\told\nq2\tsame\n"))
    summary = import_queries(
        campaign=campaign, file=write(tmp_path, "b.tsv", "q1\tnew\tintent\nq2\tsame\nq3\tthird\n")
    )
    assert (summary.created, summary.updated, summary.skipped) == (1, 1, 1)
    assert stored(campaign) == {"q1": ("new", "intent"), "q2": ("same", ""), "q3": ("third", "")}


def test_it_reads_binary_and_text_streams_and_drops_a_bom(campaign):
    import_queries(campaign=campaign, file=io.BytesIO("\ufeffq1\tcafé\r\n".encode()), name="up")
    import_queries(campaign=campaign, file=io.StringIO("q2\tthé\n"), name="text")
    assert stored(campaign) == {"q1": ("café", ""), "q2": ("thé", "")}


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ("q1\tok\nq2 no tab\n", 2, "too few columns"),
        ("q1\tok\nq2\ta\tb\tc\n", 2, "too many columns"),
        ("q1\tok\n\nq1\tagain\n", 3, "already defined at line 1"),
        ("q1\tok\nq 2\ttext\n", 2, "contains whitespace"),
        ("q1\t\n", 1, "has no text"),
        ("\tno id\n", 1, "query id is empty"),
        ("q1\tok\n" + "x" * 201 + "\tlong id\n", 2, "longer than 200"),
        ("q1\tok\nq2\tnul \x00 here\n", 2, "NUL byte"),
    ],
)
def test_it_rejects_bad_tsv_lines(campaign, tmp_path, content, line, message):
    path = write(tmp_path, "bad.tsv", content)
    with pytest.raises(ImportFailed) as caught:
        import_queries(campaign=campaign, file=path, name="bad.tsv")
    assert caught.value.line == line
    assert str(caught.value).startswith(f"bad.tsv:{line}: ")
    assert message in str(caught.value)
    assert Query.objects.count() == 0


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ('{"id": "q1", "text": "a"}\n{"id": "q2", "text": "b"\n', 2, "not valid JSON"),
        ('{"id": "q1", "text": "a"}\n["q2", "b"]\n', 2, "must be an object"),
        ('{"text": "a"}\n', 1, "no query id"),
        ('{"id": "q1", "text": 3}\n', 1, "must be text"),
        ('{"id": "q1"}\n', 1, "no query text"),
        ('{"id": true, "text": "a"}\n', 1, "must be text"),
    ],
)
def test_it_rejects_bad_jsonl_lines(campaign, tmp_path, content, line, message):
    with pytest.raises(ImportFailed) as caught:
        import_queries(campaign=campaign, file=write(tmp_path, "q.jsonl", content))
    assert caught.value.line == line
    assert message in str(caught.value)


def test_it_names_the_line_of_a_byte_that_is_not_utf8(campaign, tmp_path):
    path = write(tmp_path, "latin1.tsv", "q1\tok\nq2\tcaf\xe9\n".encode("latin-1"))
    with pytest.raises(ImportFailed) as caught:
        import_queries(campaign=campaign, file=path)
    assert str(caught.value) == (
        f"{path}:2: not valid UTF-8 (0xe9 at byte 7 of the line); save the file as UTF-8"
    )


def test_a_failed_import_changes_nothing_even_after_a_full_batch(campaign, tmp_path):
    import_queries(campaign=campaign, file=write(tmp_path, "a.tsv", "q1\toriginal\n"))
    before, before_values = counts(), stored(campaign)
    lines = [f"n{i}\tquery {i}" for i in range(6_000)] + ["q1\tchanged", "broken line"]
    with pytest.raises(ImportFailed) as caught:
        import_queries(campaign=campaign, file=write(tmp_path, "b.tsv", "\n".join(lines)))
    assert caught.value.line == 6_002
    assert counts() == before
    assert stored(campaign) == before_values


def test_it_reports_a_missing_file_without_a_line(campaign, tmp_path):
    with pytest.raises(ImportFailed) as caught:
        import_queries(campaign=campaign, file=tmp_path / "nope.tsv")
    assert caught.value.line is None
    assert "cannot read the file" in str(caught.value)
