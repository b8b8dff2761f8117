"""The messages Python code shows users are marked and translated (issue 20): import errors
(`file:line: why`) and warnings from the import parsers and label sources, the field names they
quote, the jobs' states, units, outcomes and errors (a job writes them in the language of whoever
started it: the worker has no request)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from annotate.services.imports import (
    ImportFailed,
    import_documents,
    import_qrels,
    import_queries,
    import_run,
)
from annotate.services.labels.logs import import_log
from jobs.models import Job, State
from jobs.runner import run_job
from tests.i18n.pyscan import findings, python_findings

ROOT = Path(__file__).resolve().parents[2]
# Where the messages of files, fields and jobs are written.
MESSAGE_MODULES = [
    "annotate/inputs.py",
    "annotate/services/imports/*.py",
    "annotate/services/labels/*.py",
    "jobs/*.py",
]
ZH_BROWSER = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}


def test_no_message_of_the_parsers_or_jobs_is_left_unmarked():
    found = python_findings(ROOT, MESSAGE_MODULES)
    assert not found, "Mark these for translation:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('raise fields.fail(line, f"query {qid!r} has no text")', ["f'query {qid!r} has no text'"]),
        ('raise ImportFailed(path, None, "the file is empty")', ["'the file is empty'"]),
        ('fields.integer(text, line, "rank")', ["'rank'"]),
        ('summary.warnings.append(f"run {name!r} replaced")', ["f'run {name!r} replaced'"]),
        ('raise fields.fail(line, _("%(what)s is empty") % {"what": what})', []),
        ('raise ValueError(_("no %(x)s") % {"x": ", ".join(limit("json_depth"))})', []),
        ('raise ValueError("programmers only")  # i18n: not text', []),
        ('x = "not raised, not a message"', []),
    ],
)
def test_the_scan_finds_unmarked_messages_and_only_those(source, expected):
    assert [code for _line, code in findings(source)] == expected


def failure(function, data: bytes, **kwargs) -> str:
    with translation.override("zh-hans"), pytest.raises(ImportFailed) as failed:
        function(file=io.BytesIO(data), **kwargs)
    return str(failed.value)


@pytest.mark.django_db
def test_import_errors_read_chinese_and_keep_their_file_line_shape(personas):
    from tests.annotate.queue_helpers import build_pool

    campaign = personas.campaign
    build_pool(campaign, queries=1, docs_per_query=1)
    query = campaign.queries.get()
    assert (
        failure(import_queries, b"q1\tone\nq1\tagain\n", name="q.tsv", campaign=campaign)
        == "q.tsv:2: 查询 'q1' 已在第 1 行定义"
    )
    assert (
        failure(
            import_documents, b'{"id": "d1", "url": "ftp://x"}\n', name="d.jsonl", campaign=campaign
        )
        == "d.jsonl:1: url 'ftp://x' 不是 http(s) 网址"
    )
    assert (
        failure(import_qrels, b"q1 0 d1\n", name="q.txt", campaign=campaign, source_name="s")
        == "q.txt:1: 列数太少：应为 4 列（qid iter docno grade），实际为 3 列"
    )
    run = f"{query.external_id} Q0 d1 first 1.0 t\n".encode()
    assert (
        failure(import_run, run, filename="r.txt", campaign=campaign, name="r")
        == "r.txt:1: 排名 'first' 不是整数"  # the field's name is translated too
    )
    log = b"query,document,position,impressions,clicks\nq,d,1,2,5\n"
    assert (
        failure(import_log, log, filename="log.csv", campaign=campaign, name="l")
        == "log.csv:2: 点击 5 次，但只展示了 2 次"
    )


@pytest.mark.django_db
def test_an_import_summary_reads_chinese(personas):
    with translation.override("zh-hans"):
        summary = import_queries(
            campaign=personas.campaign, file=io.BytesIO(b"q1\tone\n\n"), name="q.tsv", fmt="tsv"
        )
        assert str(summary) == "q.tsv：已读取 2 行；新建查询 1 条；跳过 1 条（空行或无变化）。"


@pytest.mark.django_db(databases=["default", "jobs"])
@override_settings(JOBS_SYNC_MAX_BYTES=10, JOBS_HEARTBEAT_SECONDS=3600)
def test_a_job_started_from_a_chinese_page_fails_and_shows_in_chinese(personas):
    client = personas.client_for("manager")
    slug = personas.campaign.slug
    body = b"q1\tone\nq1\tagain\n"
    response = client.post(
        reverse("annotate:import", args=[slug]),
        {"kind": "queries", "file": SimpleUploadedFile("q.tsv", body)},
        **ZH_BROWSER,
    )
    assert response.status_code == 302
    job = Job.objects.get()
    assert job.title.startswith("queries: q.tsv (") and job.title.endswith("字节)")
    with translation.override("en"):  # the worker: no request, the default language
        assert run_job.call(job.pk) == State.FAILED
    job.refresh_from_db()
    assert job.error == "q.tsv:2: 查询 'q1' 已在第 1 行定义"

    page = client.get(reverse("jobs:campaign", args=[slug]), **ZH_BROWSER).content.decode()
    assert '<td data-field="state">已失败</td>' in page and "/ 2 行</span>" in page
    status = client.get(reverse("jobs:status", args=[slug]), **ZH_BROWSER).json()["jobs"][0]
    assert (status["state"], status["state_label"], status["unit_label"]) == (
        "failed",
        "已失败",
        "行",
    )
    english = client.get(reverse("jobs:status", args=[slug])).json()["jobs"][0]
    assert (english["state_label"], english["unit_label"]) == ("failed", "lines")
