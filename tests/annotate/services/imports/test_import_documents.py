"""Document imports: CSV and JSONL, extra fields, filling placeholders, bad lines."""

from __future__ import annotations

import pytest

from annotate.models import Document
from annotate.services.imports import ImportFailed, import_documents
from tests.annotate.import_support import counts, make_campaign, write


@pytest.fixture
def campaign(db):
    return make_campaign()


def doc(campaign, ext: str) -> Document:
    return Document.objects.get(campaign=campaign, external_id=ext)


def test_it_imports_csv_keeping_other_columns_as_extra(campaign, tmp_path):
    path = write(
        tmp_path,
        "docs.csv",
        "id,title,url,snippet,lang,price\n"
        'd1,Sony WH-1000XM5,https://example.com/sony,"Noise cancelling, 30 h",en,349\n'
        "\n"
        'd2,"A title\nover two lines",,Short,de,\n',
    )
    summary = import_documents(campaign=campaign, file=path)
    assert (summary.created, summary.skipped, summary.lines) == (2, 1, 5)
    d1, d2 = doc(campaign, "d1"), doc(campaign, "d2")
    assert (d1.title, d1.url, d1.snippet) == (
        "Sony WH-1000XM5",
        "https://example.com/sony",
        "Noise cancelling, 30 h",
    )
    assert d1.extra == {"lang": "en", "price": "349"}
    assert (d2.title, d2.url, d2.extra) == (
        "A title\nover two lines",
        "",
        {"lang": "de", "price": ""},
    )
    assert not d1.is_placeholder


def test_it_imports_jsonl_with_docno_and_nested_extra(campaign, tmp_path):
    path = write(
        tmp_path,
        "docs.jsonl",
        '{"docno": "d1", "title": "T", "snippet": "S", "rating": 4.5, "extra": {"brand": "X"}}\n',
    )
    import_documents(campaign=campaign, file=path)
    d1 = doc(campaign, "d1")
    assert (d1.title, d1.snippet, d1.url) == ("T", "S", "")
    assert d1.extra == {"brand": "X", "rating": 4.5}


def test_a_later_import_fills_placeholders_and_updates_documents(campaign, tmp_path):
    Document.objects.create(campaign=campaign, external_id="p1", is_placeholder=True)
    Document.objects.create(campaign=campaign, external_id="p2", is_placeholder=True)
    Document.objects.create(campaign=campaign, external_id="d1", title="Old", extra={"a": 1})
    path = write(
        tmp_path,
        "docs.jsonl",
        '{"id": "p1", "title": "Now known"}\n'
        '{"id": "p2"}\n'
        '{"id": "d1", "snippet": "new snippet", "b": 2}\n'
        '{"id": "d9", "title": "Brand new"}\n',
    )
    summary = import_documents(campaign=campaign, file=path)
    assert (summary.created, summary.updated, summary.placeholders_filled, summary.skipped) == (
        1,
        1,
        1,
        1,
    )
    p1, p2, d1 = doc(campaign, "p1"), doc(campaign, "p2"), doc(campaign, "d1")
    assert (p1.title, p1.is_placeholder) == ("Now known", False)
    assert p2.is_placeholder  # nothing but its id: still known by id only
    # Fields the record has replace the stored ones; the others stay; extra is merged.
    assert (d1.title, d1.snippet, d1.extra) == ("Old", "new snippet", {"a": 1, "b": 2})


def test_it_refuses_a_url_a_browser_should_not_follow(campaign, tmp_path):
    path = write(tmp_path, "d.csv", "id,url\nd1,https://ok.example/\nd2,javascript:alert(1)\n")
    with pytest.raises(ImportFailed) as caught:
        import_documents(campaign=campaign, file=path, name="d.csv")
    assert str(caught.value) == "d.csv:3: url 'javascript:alert(1)' is not an http(s) URL"


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ("title,url\nT,https://a.example/\n", 1, "no 'id' (or 'docno') column"),
        ("id,title,title\nd1,a,b\n", 1, "empty or repeated column name"),
        ("id,title\nd1,a\nd2\n", 3, "expected 2 columns as in the header, found 1"),
        ("id,title\nd1,a\nd2,b,c\n", 3, "expected 2 columns as in the header, found 3"),
        ("id,title\nd1,a\n\nd1,b\n", 4, "already defined at line 2"),
        ("id,title\nd1,a\nd 2,b\n", 3, "contains whitespace"),
        ("id,title\nd1,a\n,b\n", 3, "document id is empty"),
        ('id,title\nd1,a\nd2,"unclosed\n', 3, "bad CSV"),
    ],
)
def test_it_rejects_bad_csv_lines(campaign, tmp_path, content, line, message):
    with pytest.raises(ImportFailed) as caught:
        import_documents(campaign=campaign, file=write(tmp_path, "docs.csv", content))
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{tmp_path / 'docs.csv'}:{line}: ")
    assert message in str(caught.value)
    assert Document.objects.count() == 0


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ('{"id": "d1"}\n{"title": "no id"}\n', 2, "no document id"),
        ('{"id": "d1"}\nnot json\n', 2, "not valid JSON"),
        ('{"id": "d1", "title": ["a"]}\n', 1, "'title' must be text"),
    ],
)
def test_it_rejects_bad_jsonl_lines(campaign, tmp_path, content, line, message):
    with pytest.raises(ImportFailed) as caught:
        import_documents(campaign=campaign, file=write(tmp_path, "docs.jsonl", content))
    assert caught.value.line == line
    assert message in str(caught.value)


def test_an_empty_csv_is_an_error(campaign, tmp_path):
    with pytest.raises(ImportFailed, match="expected a header row"):
        import_documents(campaign=campaign, file=write(tmp_path, "docs.csv", "\n"))


def test_a_failed_import_leaves_placeholders_and_documents_as_they_were(campaign, tmp_path):
    Document.objects.create(campaign=campaign, external_id="p1", is_placeholder=True)
    before = counts()
    rows = [f"n{i},title {i}" for i in range(5_500)]
    content = "id,title\np1,filled\n" + "\n".join(rows) + "\nbad id,x\n"
    with pytest.raises(ImportFailed) as caught:
        import_documents(campaign=campaign, file=write(tmp_path, "docs.csv", content))
    assert caught.value.line == 5_503
    assert counts() == before
    assert doc(campaign, "p1").is_placeholder


def test_a_json_error_names_its_column_once(campaign, tmp_path):
    # json says "Unterminated string starting at"; the message read "at at column" (#21).
    path = write(tmp_path, "docs.jsonl", '{"id": "d1"}\n{"id": "d2", "title": "unfinished')
    with pytest.raises(ImportFailed) as caught:
        import_documents(campaign=campaign, file=path)
    message = str(caught.value)
    assert "starting at column 23" in message and "at at" not in message
    assert Document.objects.count() == 0
