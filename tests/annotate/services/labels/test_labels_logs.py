"""Behaviour logs: CSV and JSONL, sums per (query, document, position) and per position over
the whole log, chunked aggregation, bad rows that change nothing, and a 100,000-row file."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotate.models import BehaviourLog, BehaviourPosition, BehaviourStat, Document
from annotate.services.imports import ImportFailed
from annotate.services.labels import logs as logs_module
from annotate.services.labels.logs import import_log
from tests.annotate.import_support import AFFECTED, add_queries, make_campaign, write

pytestmark = pytest.mark.django_db

MODELS = (*AFFECTED, BehaviourLog, BehaviourPosition, BehaviourStat)


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


def stats(log_name: str) -> dict[tuple[str, str, int], tuple[int, int, int, float]]:
    rows = BehaviourStat.objects.filter(log__name=log_name).values_list(
        "query__external_id",
        "document__external_id",
        "position",
        "impressions",
        "clicks",
        "conversions",
        "dwell_seconds",
    )
    return {(q, d, p): (i, c, v, w) for q, d, p, i, c, v, w in rows}


def positions(log_name: str) -> dict[int, tuple[int, int, int]]:
    rows = BehaviourPosition.objects.filter(log__name=log_name).values_list(
        "position", "impressions", "clicks", "conversions"
    )
    return {p: (i, c, v) for p, i, c, v in rows}


@pytest.fixture
def campaign():
    campaign = make_campaign("logs")
    add_queries(campaign, "q1", "q2")
    Document.objects.bulk_create(
        Document(campaign=campaign, external_id=f"d{i}", url=f"https://shop.example/p/{i}")
        for i in range(1, 6)
    )
    return campaign


CSV = """qid,docno,position,impressions,clicks,purchases,dwell
q1,d1,1,100,30,2,61.5
q1,d2,3,10,1,,
q1,d1,1,50,10,1,20
q2,https://www.shop.example/p/3/,2,40,4,0,8
q2,d9,1,5,1,0,0
zz,d1,1,1000,100,7,0
"""


def test_rows_are_summed_per_pair_and_position_and_per_position_over_the_whole_log(
    campaign, tmp_path
):
    summary = import_log(campaign=campaign, file=write(tmp_path, "log.csv", CSV), name="week")
    assert stats("week") == {
        ("q1", "d1", 1): (150, 40, 3, 81.5),  # two rows added up
        ("q1", "d2", 3): (10, 1, 0, 0.0),  # empty cells are 0
        ("q2", "d3", 2): (40, 4, 0, 8.0),  # matched by normalised URL
    }
    # Every row counts per position: d9 (unknown document) and zz (unknown query) too.
    assert positions("week") == {1: (1155, 141, 10), 2: (40, 4, 0), 3: (10, 1, 0)}
    log = BehaviourLog.objects.get(name="week")
    assert (log.rows, log.matched_rows, log.unknown_query_rows, log.unknown_document_rows) == (
        6,
        4,
        1,
        1,
    )
    assert log.has_conversions and log.has_dwell
    assert summary.created == 3
    assert len(summary.warnings) == 2


def test_jsonl_gives_the_same_sums(campaign, tmp_path):
    records = [
        {"query": "q1", "doc_id": "d1", "pos": 1, "impressions": 100, "clicks": 30},
        {"query": "q1", "doc_id": "d1", "pos": 1, "impressions": 50.0, "clicks": 10},
        {"query": "q1", "url": "http://shop.example/p/2", "pos": 4, "impressions": 7, "clicks": 0},
    ]
    text = "\n".join(json.dumps(r) for r in records) + "\n\n"
    import_log(campaign=campaign, file=write(tmp_path, "log.jsonl", text), name="j")
    assert stats("j") == {("q1", "d1", 1): (150, 40, 0, 0.0), ("q1", "d2", 4): (7, 0, 0, 0.0)}
    log = BehaviourLog.objects.get(name="j")
    assert not log.has_conversions and not log.has_dwell


def test_chunks_add_up_to_the_same_totals(campaign, tmp_path, monkeypatch):
    rng = np.random.default_rng(7)
    lines = ["qid,docno,position,impressions,clicks"]
    for _ in range(500):
        imp = int(rng.integers(1, 50))
        lines.append(
            f"q{rng.integers(1, 3)},d{rng.integers(1, 6)},{rng.integers(1, 6)},{imp},"
            f"{rng.integers(0, imp + 1)}"
        )
    path = write(tmp_path, "log.csv", "\n".join(lines))
    import_log(campaign=campaign, file=path, name="whole")
    monkeypatch.setattr(logs_module, "_CHUNK", 7)
    import_log(campaign=campaign, file=path, name="chunked")
    assert stats("chunked") == stats("whole")
    assert positions("chunked") == positions("whole")


@pytest.mark.parametrize(
    ("name", "text", "where", "problem"),
    [
        ("l.csv", "qid,docno,position,impressions,clicks\nq1,d1,1,5,6\n", ":2:", "6 clicks but"),
        ("l.csv", "qid,docno,position,impressions,clicks\nq1,d1,0,5,1\n", ":2:", "position"),
        ("l.csv", "qid,docno,position,impressions,clicks\nq1,d1,1,5.5,1\n", ":2:", "whole"),
        ("l.csv", "qid,docno,position,impressions,clicks\nq1,d1,1,-5,0\n", ":2:", "0 or more"),
        ("l.csv", "qid,docno,position,impressions,clicks\nq1,d1,1,5\n", ":2:", "5 columns"),
        ("l.csv", "qid,docno,position,impressions\nq1,d1,1,5\n", ":1:", "no clicks column"),
        ("l.csv", "qid,docno,pos,impressions,clicks,dwell\nq1,d1,1,5,1,x\n", ":2:", "dwell"),
        ("l.csv", "qid,docno,pos,impressions,clicks\nq1,,1,5,1\n", ":2:", "document is empty"),
        ("l.jsonl", '{"qid": "q1", "docno": "d1", "position": 1, "impressions": 2}\n', ":1:",
         "no 'clicks' key"),
        ("l.jsonl", '{"qid": "q1", "docno": "d1", "position": 1, "impressions": 2, "clicks": 1}\n'
         "{oops\n", ":2:", "not valid JSON"),
        ("l.csv", "qid,url,position,impressions,clicks\nq1,http://,1,5,1\n", ":2:", "not a URL"),
    ],
)  # fmt: skip
def test_a_bad_row_changes_nothing(campaign, tmp_path, name, text, where, problem):
    good = write(tmp_path, "good.csv", "qid,docno,position,impressions,clicks\nq1,d1,1,3,1\n")
    import_log(campaign=campaign, file=good, name="keep")
    before = counts()
    with pytest.raises(ImportFailed) as exc:
        import_log(
            campaign=campaign,
            file=write(tmp_path, name, text),
            name="keep",
            replace=True,
            match="url" if "url" in text else "auto",
        )
    assert where in str(exc.value), str(exc.value)
    assert problem in str(exc.value), str(exc.value)
    assert counts() == before
    assert stats("keep") == {("q1", "d1", 1): (3, 1, 0, 0.0)}


def test_a_log_name_taken_is_refused_unless_replaced(campaign, tmp_path):
    path = write(tmp_path, "l.csv", "qid,docno,position,impressions,clicks\nq1,d1,1,3,1\n")
    import_log(campaign=campaign, file=path, name="w")
    before = counts()
    with pytest.raises(ImportFailed, match="already exists"):
        import_log(campaign=campaign, file=path, name="w")
    assert counts() == before
    import_log(campaign=campaign, file=path, name="w", replace=True)
    assert counts() == before


def test_a_100000_row_log_imports_with_progress(campaign, tmp_path):
    rng = np.random.default_rng(11)
    n = 100_000
    qids = np.where(rng.random(n) < 0.5, "q1", "other")
    docs = rng.integers(1, 6, n)
    pos = rng.integers(1, 11, n)
    imp = rng.integers(1, 20, n)
    clk = (imp * rng.random(n) * 0.5).astype(np.int64)
    path = tmp_path / "big.csv"
    with open(path, "w") as out:
        out.write("qid,docno,position,impressions,clicks\n")
        for row in zip(qids, docs, pos, imp, clk, strict=True):
            out.write("{},d{},{},{},{}\n".format(*row))
    seen: list[int] = []
    summary = import_log(campaign=campaign, file=path, name="big", progress=seen.append)
    assert summary.lines == n + 1
    assert seen[-1] == n + 1 and len(seen) > 10
    mine = qids == "q1"
    stored = BehaviourStat.objects.filter(log__name="big")
    assert sum(stored.values_list("impressions", flat=True)) == int(imp[mine].sum())
    assert sum(stored.values_list("clicks", flat=True)) == int(clk[mine].sum())
    assert stored.count() == len(set(zip(docs[mine], pos[mine], strict=True)))
    by_pos = positions("big")
    for p in range(1, 11):
        assert by_pos[p][:2] == (int(imp[pos == p].sum()), int(clk[pos == p].sum()))


def test_the_command_imports_a_log_and_reports_a_bad_row(campaign, tmp_path, capsys):
    path = write(tmp_path, "l.csv", CSV)
    call_command("import_logs", str(path), campaign="logs", name="week", progress=True)
    captured = capsys.readouterr()
    assert "3 (query, document, position) totals in log 'week' created" in captured.out
    assert "100.0%" in captured.err
    bad = write(tmp_path, "bad.csv", "qid,docno,position,impressions,clicks\nq1,d1,1,1,2\n")
    with pytest.raises(CommandError, match=r"bad\.csv:2: 2 clicks but only 1 impressions"):
        call_command("import_logs", str(bad), campaign="logs", name="other")
