"""The API's CSV tables: one header, the union of the rows' columns in first-seen order, built
in linear time, and at most MAX_CSV_COLUMNS of them (a clear JSON 400 beyond, not a table of
rows times columns built in memory)."""

from __future__ import annotations

import csv
import io

from annotate.api.formats import MAX_CSV_COLUMNS, TooManyColumns, rows_to_csv
from annotate.models import Document
from tests.api.conftest import api_client_for


def test_the_header_is_the_union_of_the_columns_in_first_seen_order():
    rows = [{"a": 1, "b": {"x": 2}}, {"c": "=1+1", "a": 3}, {"b": {"y": True}}]
    lines = list(csv.reader(io.StringIO(rows_to_csv(rows))))
    assert lines == [
        ["a", "b.x", "c", "b.y"],
        ["1", "2", "", ""],
        ["3", "", "'=1+1", ""],
        ["", "", "", "true"],
    ]


class _Column(str):
    """A column name that counts how often it is compared: the measure of the header's work
    that does not depend on the machine's speed."""

    comparisons = 0

    def __eq__(self, other: object) -> bool:
        _Column.comparisons += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_the_header_of_many_columns_is_built_in_linear_time(monkeypatch):
    """Three rows of the same 2,000 columns: a list searched for each new column (the old
    header) compares about 3 * 2,000 * 1,000 = 6 * 10^6 times; a dict compares each column of
    each row about once (and once more when the row is written)."""
    from annotate.api import formats

    n, rows_n = 2_000, 3
    monkeypatch.setattr(formats, "flatten", lambda row: row)
    rows = [{_Column(f"k{i}"): i for i in range(n)} for _ in range(rows_n)]
    _Column.comparisons = 0
    text = rows_to_csv(rows, max_columns=n)
    header = text.split("\r\n", 1)[0].split(",")
    assert header[:3] == ["k0", "k1", "k2"] and len(header) == n
    assert _Column.comparisons <= 4 * rows_n * n, _Column.comparisons


def test_more_columns_than_the_cap_are_refused_before_rows_are_written():
    rows = [{f"k{i}": i} for i in range(11)]
    assert rows_to_csv(rows, max_columns=11).count(",") == 10 * 12
    try:
        rows_to_csv(rows, max_columns=10)
    except TooManyColumns as refused:
        assert "more than 10 CSV columns" in str(refused)
    else:
        raise AssertionError("11 columns passed a cap of 10")


def _documents(campaign, count: int, keys: int) -> None:
    Document.objects.bulk_create(
        Document(
            campaign=campaign,
            external_id=f"doc{d}",
            extra={f"d{d}-k{k}": k for k in range(keys)},
        )
        for d in range(count)
    )


def test_documents_whose_extra_fields_differ_are_a_json_400_in_csv(personas):
    """11 documents of 100 extra keys each (the import's limit) make 1,100 distinct keys."""
    _documents(personas.campaign, 11, 100)
    client = api_client_for(personas, "manager")
    response = client.get("/api/v1/documents/", {"format": "csv", "page_size": 100})
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    detail = response.json()["detail"]
    assert f"more than {MAX_CSV_COLUMNS:,} CSV columns" in detail and "page_size" in detail
    assert client.get("/api/v1/documents/", {"page_size": 100}).status_code == 200  # JSON is fine
    fewer = client.get("/api/v1/documents/", {"format": "csv", "page_size": 5})
    assert fewer.status_code == 200 and fewer["Content-Type"].startswith("text/csv")
