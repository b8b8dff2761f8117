"""The import_* management commands: summaries, options, standard input, clean failures."""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotate.models import LabelSource, Query, Run, SourceLabel
from tests.annotate.import_support import counts, make_campaign, write
from tests.support.migrated import database_copy

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def campaign(db):
    return make_campaign("cmd")


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_the_commands_import_every_kind_and_print_a_summary(campaign, tmp_path):
    out = run(
        "import_queries", "--campaign", "cmd", str(write(tmp_path, "q.tsv", "q1\ta\nq2\tb\n"))
    )
    assert "2 lines read; 2 queries created" in out
    out = run(
        "import_run",
        "--campaign=cmd",
        "--system=prod",
        "--name=prod-1",
        str(write(tmp_path, "r.run", "q1 Q0 d1 1 2 t\nq2 Q0 d2 1 2 t\n")),
    )
    assert "2 run entries created" in out and "2 placeholder documents created" in out
    assert "warning: 2 documents were not in the campaign" in out
    assert Run.objects.get(name="prod-1").system.name == "prod"
    out = run(
        "import_documents",
        "--campaign=cmd",
        str(write(tmp_path, "d.jsonl", '{"id": "d1", "title": "One"}\n')),
    )
    assert "1 placeholder documents filled" in out
    out = run(
        "import_qrels",
        "--campaign=cmd",
        "--source=team",
        "--any-grade",
        str(write(tmp_path, "x.qrels", "q1 0 d1 2.5\n")),
    )
    assert "1 labels created" in out
    assert SourceLabel.objects.get(source__name="team").grade == 2.5
    out = run("import_scored", "--campaign=cmd", "--name=s4", str(write(tmp_path, "s", "3 q9 1\n")))
    assert "1 queries created" in out
    assert Query.objects.filter(campaign=campaign).count() == 3
    assert LabelSource.objects.filter(campaign=campaign).count() == 2


def test_per_tag_makes_one_run_per_tag(campaign, tmp_path):
    Query.objects.create(campaign=campaign, external_id="q1", text="a")
    path = write(tmp_path, "r", "q1 Q0 d1 1 2 A\nq1 Q0 d1 1 2 B\n")
    out = run("import_run", "--campaign=cmd", "--per-tag", str(path))
    assert "runs: A, B" in out


def test_a_bad_line_is_a_command_error_and_writes_nothing(campaign, tmp_path):
    Query.objects.create(campaign=campaign, external_id="q1", text="a")
    before = counts()
    path = write(tmp_path, "bad.run", "q1 Q0 d1 1 2 t\nq1 Q0 d2 1 two t\n")
    with pytest.raises(CommandError) as caught:
        run("import_run", "--campaign=cmd", str(path))
    assert str(caught.value).startswith(f"{path}:2: score 'two' is not a number")
    assert caught.value.returncode == 1
    assert counts() == before


def test_an_unknown_campaign_is_a_command_error(db, tmp_path):
    with pytest.raises(CommandError, match="no campaign with slug 'nope'"):
        run("import_queries", "--campaign=nope", str(write(tmp_path, "q.tsv", "q1\ta\n")))


def test_dash_reads_standard_input(campaign, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"q1\tfrom stdin\n")))
    out = run("import_queries", "--campaign=cmd", "-")
    assert out.startswith("<stdin>: 1 lines read")
    assert Query.objects.get(external_id="q1").text == "from stdin"


def test_progress_counts_lines_on_stderr_when_asked(campaign, tmp_path):
    err = io.StringIO()
    lines = "".join(f"q{i}\tquery {i}\n" for i in range(12_000))
    call_command(
        "import_queries",
        "--campaign=cmd",
        "--progress",
        str(write(tmp_path, "q.tsv", lines)),
        stdout=io.StringIO(),
        stderr=err,
    )
    assert "\r12,000 lines read, " in err.getvalue()
    assert err.getvalue().endswith(" lines/s \n")


def test_no_progress_when_stderr_is_not_a_terminal(campaign, tmp_path):
    err = io.StringIO()
    path = write(tmp_path, "q.tsv", "q1\ta\n")
    call_command("import_queries", "--campaign=cmd", str(path), stdout=io.StringIO(), stderr=err)
    assert err.getvalue() == ""


@pytest.fixture(scope="module")
def process_env(django_db_setup, tmp_path_factory) -> dict[str, str]:
    """A fresh copy of the run's migrated database, on the run's own engine
    (tests/support/migrated.py), with one campaign, for commands run as real processes. (The
    set-up skips the system checks, which import every view; the commands under test run
    them. After `django_db_setup`, whose migrated databases are the copy's template.)"""
    url = database_copy(tmp_path_factory, tmp_path_factory.mktemp("cli"), "cli")
    env = {k: v for k, v in os.environ.items() if k != "TEST_DATABASE_NAME"}
    env |= {"DATABASE_URL": url, "DEBUG": "1"}
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run(
        [*manage, "campaign_create", "CLI", "--slug", "cli", "--skip-checks"],
        env=env,
        check=True,
        cwd=ROOT,
    )
    return env


def count_in(env: dict[str, str], sql: str) -> int:
    """One count read from the processes' database itself (a `shell` process to count would
    cost a Django start-up)."""
    url = env["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return db.execute(sql).fetchone()[0]
    with psycopg.connect(url) as db:
        return db.execute(sql).fetchone()[0]


def manage(env: dict[str, str], *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env,
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        check=False,
    )


@pytest.mark.xdist_group("cli-processes")  # one worker builds process_env
def test_a_real_process_exits_non_zero_without_a_traceback(process_env, tmp_path):
    # Ids of its own: the other real-process test imports q0 to q19999 into the same file.
    path = write(tmp_path, "bad.tsv", "bad1\tgood\nbad2 has no tab\n")
    done = manage(process_env, "import_queries", "--campaign=cli", str(path))
    stderr = done.stderr.decode()
    assert done.returncode == 1
    assert f"{path}:2: too few columns" in stderr
    assert "Nothing was imported." in stderr
    assert "Traceback" not in stderr
    kept = f"SELECT COUNT(*) FROM {Query._meta.db_table} WHERE external_id = 'bad1'"
    assert count_in(process_env, kept) == 0  # the good line before the bad one


@pytest.mark.xdist_group("cli-processes")  # one worker builds process_env
def test_a_real_process_reads_stdin_and_shows_progress(process_env):
    data = "".join(f"q{i}\tquery {i}\n" for i in range(20_000)).encode()
    done = manage(process_env, "import_queries", "--campaign=cli", "--progress", "-", stdin=data)
    assert done.returncode == 0, done.stderr.decode()
    assert "<stdin>: 20,000 lines read; 20,000 queries created" in done.stdout.decode()
    assert "\r20,000 lines read, " in done.stderr.decode()
