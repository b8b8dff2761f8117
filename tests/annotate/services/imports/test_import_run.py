"""TREC run imports: one run per file or per tag, placeholders, bad lines, atomicity."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from annotate.models import Document, Run, RunEntry, System
from annotate.services.imports import ImportFailed, import_run
from tests.annotate.import_support import add_documents, add_queries, counts, make_campaign, write


@pytest.fixture
def campaign(db):
    campaign = make_campaign()
    add_queries(campaign, "q1", "q2")
    add_documents(campaign, "d1", "d2")
    return campaign


def entries(run: Run) -> list[tuple[str, str, int, float]]:
    rows = RunEntry.objects.filter(run=run).order_by("query__external_id", "rank")
    return [(e.query.external_id, e.document.external_id, e.rank, e.score) for e in rows]


RUN = """q1 Q0 d1 1 12.5 bm25
q1 Q0 d7 2 11 bm25

q2\tQ0\td2\t1\t-0.25\tbm25
q2 Q0 d8 2 -1e-3 bm25
"""


def test_it_imports_one_run_named_after_its_tag(campaign, tmp_path):
    summary = import_run(campaign=campaign, file=write(tmp_path, "bm25.run", RUN))
    assert (summary.created, summary.placeholders, summary.skipped, summary.lines) == (4, 2, 1, 5)
    assert summary.runs == ["bm25"] and summary.systems_created == ["bm25"]
    run = Run.objects.get(campaign=campaign, name="bm25")
    assert run.system.name == "bm25"
    assert entries(run) == [
        ("q1", "d1", 1, 12.5),
        ("q1", "d7", 2, 11.0),
        ("q2", "d2", 1, -0.25),
        ("q2", "d8", 2, -0.001),
    ]
    placeholders = Document.objects.filter(campaign=campaign, is_placeholder=True)
    assert sorted(placeholders.values_list("external_id", flat=True)) == ["d7", "d8"]
    assert any("2 documents were not in the campaign" in w for w in summary.warnings)


def test_it_takes_the_run_and_system_names_given(campaign, tmp_path):
    System.objects.create(campaign=campaign, name="prod")
    summary = import_run(
        campaign=campaign, file=write(tmp_path, "r", RUN), name="prod-2026-10", system="prod"
    )
    assert summary.systems_created == []
    run = Run.objects.get(name="prod-2026-10")
    assert (run.system.name, run.entries.count()) == ("prod", 4)


def test_it_makes_one_run_and_system_per_tag(campaign, tmp_path):
    content = "q1 Q0 d1 1 3 A\nq1 Q0 d1 1 5 B\nq2 Q0 d2 1 2 A\nq1 Q0 d2 2 4 B\n"
    summary = import_run(campaign=campaign, file=write(tmp_path, "r", content), per_tag=True)
    assert summary.runs == ["A", "B"] and summary.systems_created == ["A", "B"]
    a, b = Run.objects.get(name="A"), Run.objects.get(name="B")
    assert (a.system.name, b.system.name) == ("A", "B")
    assert entries(a) == [("q1", "d1", 1, 3.0), ("q2", "d2", 1, 2.0)]
    assert entries(b) == [("q1", "d1", 1, 5.0), ("q1", "d2", 2, 4.0)]


def test_it_refuses_a_second_tag_unless_a_name_or_per_tag_is_given(campaign, tmp_path):
    path = write(tmp_path, "r", "q1 Q0 d1 1 3 A\nq1 Q0 d2 2 2 B\n")
    with pytest.raises(ImportFailed) as caught:
        import_run(campaign=campaign, file=path, filename="r")
    assert str(caught.value).startswith("r:2: tag 'B' differs from 'A' (line 1)")
    summary = import_run(campaign=campaign, file=path, name="merged")
    assert Run.objects.get(name="merged").entries.count() == 2
    assert "the file has several tags; all went into 'merged'" in summary.warnings


def test_tags_that_alternate_find_their_runs_again(campaign, tmp_path):
    # The reader looks a run up only when the tag changes: coming back to a tag must find its
    # run, and the warning of a named run with several tags is given once.
    content = "q1 Q0 d1 1 3 A\nq1 Q0 d1 1 5 B\nq2 Q0 d2 1 2 A\n\nq1 Q0 d2 2 4 B\n"
    import_run(campaign=campaign, file=write(tmp_path, "r", content), per_tag=True)
    assert entries(Run.objects.get(name="A")) == [("q1", "d1", 1, 3.0), ("q2", "d2", 1, 2.0)]
    assert entries(Run.objects.get(name="B")) == [("q1", "d1", 1, 5.0), ("q1", "d2", 2, 4.0)]
    merged = "q1 Q0 d1 1 3 A\nq1 Q0 d2 2 5 B\nq2 Q0 d2 1 2 A\n\nq2 Q0 d1 2 4 B\n"
    summary = import_run(campaign=campaign, file=write(tmp_path, "m", merged), name="m")
    assert summary.warnings.count("the file has several tags; all went into 'm'") == 1
    assert len(entries(Run.objects.get(name="m"))) == 4
    merged_late = "q1 Q0 d1 1 3 C\nq1 Q0 d2 2 5 C\n\nq2 Q0 d1 1 4 D\n"
    with pytest.raises(ImportFailed) as caught:
        import_run(campaign=campaign, file=write(tmp_path, "l", merged_late), filename="l")
    assert str(caught.value).startswith("l:4: tag 'D' differs from 'C' (line 1)")


def test_per_tag_refuses_a_run_or_system_name(campaign, tmp_path):
    with pytest.raises(ImportFailed, match="give no run name and no system"):
        import_run(campaign=campaign, file=write(tmp_path, "r", RUN), per_tag=True, name="x")


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("q1 Q0 d2 2 11", "too few columns: expected 6 (qid Q0 docno rank score tag), found 5"),
        ("q1 Q0 d2 2 high bm25", "score 'high' is not a number"),
        ("q1 Q0 d2 2 nan bm25", "score 'nan' is not a number"),
        ("q1 Q0 d2 2 -inf bm25", "score '-inf' is not a number"),
        ("q1 Q0 d2 2.5 11 bm25", "rank '2.5' is not a whole number"),
        ("q1 Q0 d2 x 11 bm25", "rank 'x' is not a whole number"),
        ("q9 Q0 d2 2 11 bm25", "query 'q9' is not in this campaign: import the queries first"),
        ("q1 Q0 d1 2 11 bm25", "document 'd1' is listed twice for query 'q1' in run 'bm25'"),
    ],
)
def test_it_rejects_a_bad_line_and_writes_nothing(campaign, tmp_path, bad_line, message):
    before = counts()
    # A placeholder (d5) comes before the bad line: it must be rolled back too.
    content = f"q1 Q0 d1 1 12 bm25\nq2 Q0 d5 1 3 bm25\n{bad_line}\nq2 Q0 d2 2 1 bm25\n"
    with pytest.raises(ImportFailed) as caught:
        import_run(campaign=campaign, file=write(tmp_path, "bm25.run", content), filename="f.run")
    assert caught.value.line == 3
    assert str(caught.value).startswith("f.run:3: ")
    assert message in str(caught.value)
    assert counts() == before


def test_fields_after_the_tag_are_ignored_as_trec_eval_ignores_them(campaign, tmp_path):
    # trec_eval's parse_results_line takes six fields and skips the rest of the line; the
    # entries must be those of the same lines without the extra words (RUN, read by hand above).
    trailing = (
        "q1 Q0 d1 1 12.5 bm25 judged by hand\n"
        "q1 Q0 d7 2 11 bm25\n"
        "\n"
        "q2\tQ0\td2\t1\t-0.25\tbm25\textra\n"
        "q2 Q0 d8 2 -1e-3 bm25 0 1 2\n"
    )
    summary = import_run(campaign=campaign, file=write(tmp_path, "bm25.run", trailing))
    run = Run.objects.get(campaign=campaign, name="bm25")
    assert entries(run) == [
        ("q1", "d1", 1, 12.5),
        ("q1", "d7", 2, 11.0),
        ("q2", "d2", 1, -0.25),
        ("q2", "d8", 2, -0.001),
    ]
    assert summary.runs == ["bm25"]  # the sixth field is the tag, not the words after it
    said = [w for w in summary.warnings if "more than 6 fields" in w]
    assert said == [
        "3 lines have more than 6 fields (the first at line 1): the fields after the sixth "
        "were ignored, as trec_eval ignores them"
    ]


def test_it_names_both_lines_of_a_document_listed_twice(campaign, tmp_path):
    content = "q1 Q0 d1 1 3 r\nq2 Q0 d1 1 3 r\nq1 Q0 d1 2 2 r\n"
    with pytest.raises(ImportFailed) as caught:
        import_run(campaign=campaign, file=write(tmp_path, "r", content), filename="r")
    assert str(caught.value) == (
        "r:3: document 'd1' is listed twice for query 'q1' in run 'r' (first at line 1)"
    )


def test_it_finds_a_repeat_across_batches_and_rolls_back_every_batch(campaign, tmp_path):
    add_queries(campaign, *(f"b{i}" for i in range(6_000)))
    before = counts()
    lines = [f"b{i} Q0 new{i} 1 1.0 r" for i in range(6_000)]
    lines.append("b7 Q0 new7 2 0.5 r")  # repeats line 8, which is in the first batch
    with pytest.raises(ImportFailed) as caught:
        import_run(campaign=campaign, file=write(tmp_path, "r", "\n".join(lines)), filename="r")
    assert caught.value.line == 6_001
    assert "listed twice for query 'b7'" in str(caught.value)
    assert counts() == before


def test_an_existing_run_name_is_an_error_unless_replaced(campaign, tmp_path):
    import_run(campaign=campaign, file=write(tmp_path, "a", "q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\n"))
    run_pk = Run.objects.get(name="r").pk
    before = counts()
    path = write(tmp_path, "b", "q2 Q0 d2 1 9 r\n")
    with pytest.raises(ImportFailed) as caught:
        import_run(campaign=campaign, file=path, filename="b")
    assert str(caught.value).startswith("b:1: run 'r' already exists in this campaign")
    assert counts() == before
    summary = import_run(campaign=campaign, file=path, replace=True)
    run = Run.objects.get(name="r")
    assert run.pk == run_pk
    assert entries(run) == [("q2", "d2", 1, 9.0)]
    assert "run 'r' replaced" in summary.warnings


def test_a_failed_replacement_keeps_the_old_entries(campaign, tmp_path):
    import_run(campaign=campaign, file=write(tmp_path, "a", "q1 Q0 d1 1 3 r\n"))
    with pytest.raises(ImportFailed):
        import_run(
            campaign=campaign, file=write(tmp_path, "b", "q2 Q0 d2 1 9 r\nbad\n"), replace=True
        )
    assert entries(Run.objects.get(name="r")) == [("q1", "d1", 1, 3.0)]


def test_progress_hears_the_line_count(campaign, tmp_path):
    heard: list[int] = []
    import_run(campaign=campaign, file=write(tmp_path, "r", RUN), progress=heard.append)
    assert heard[-1] == 5


def test_an_empty_file_imports_nothing_and_says_so(campaign, tmp_path):
    summary = import_run(campaign=campaign, file=write(tmp_path, "r", "\n\n"))
    assert (summary.created, summary.runs) == (0, [])
    assert "the file has no run lines: nothing was imported" in summary.warnings


def test_placeholders_work_where_the_database_cannot_return_new_keys(
    campaign, tmp_path, monkeypatch
):
    monkeypatch.setattr(type(connection.features), "can_return_rows_from_bulk_insert", False)
    summary = import_run(campaign=campaign, file=write(tmp_path, "r", RUN))
    assert summary.placeholders == 2
    assert entries(Run.objects.get(name="bm25"))[1] == ("q1", "d7", 2, 11.0)


def test_a_concurrent_write_of_the_same_rows_is_reported_not_raised(
    campaign, tmp_path, monkeypatch
):
    """Another import created the same placeholder meanwhile: the unique constraint refuses it."""
    from annotate.services.imports.staging import RunStaging

    def racing_insert(self):
        Document.objects.create(campaign_id=self.campaign_id, external_id="d1")  # already there
        return 0

    monkeypatch.setattr(RunStaging, "create_placeholders", racing_insert)
    before = counts()
    with pytest.raises(ImportFailed) as caught:
        import_run(campaign=campaign, file=write(tmp_path, "r", RUN), filename="r")
    assert str(caught.value).startswith("r: the campaign changed while this file was imported")
    assert counts() == before


def test_a_repeat_before_a_bad_line_is_the_error_reported(campaign, tmp_path):
    """Repeats are found once the lines are staged; the file's first error still wins."""
    content = "q1 Q0 d1 1 3 r\nq1 Q0 d1 2 2 r\nq1 Q0 d2 x 1 r\n"
    with pytest.raises(ImportFailed) as caught:
        import_run(campaign=campaign, file=write(tmp_path, "r", content), filename="r")
    assert str(caught.value) == (
        "r:2: document 'd1' is listed twice for query 'q1' in run 'r' (first at line 1)"
    )


def test_entries_are_stored_in_the_order_of_the_file(campaign, tmp_path):
    content = "q2 Q0 d9 1 3 r\nq1 Q0 d2 1 2 r\nq2 Q0 d1 2 1 r\nq1 Q0 d0 2 1 r\n"
    import_run(campaign=campaign, file=write(tmp_path, "r", content))
    stored = RunEntry.objects.order_by("pk").values_list(
        "query__external_id", "document__external_id"
    )
    assert list(stored) == [("q2", "d9"), ("q1", "d2"), ("q2", "d1"), ("q1", "d0")]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="settings of PostgreSQL")
def test_the_session_settings_come_back_after_the_import(campaign, tmp_path):
    """work_mem, raised for the set-based statements, is restored."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('work_mem')")
        before = cursor.fetchone()
        import_run(campaign=campaign, file=write(tmp_path, "bm25.run", RUN))
        cursor.execute("SELECT current_setting('work_mem')")
        assert cursor.fetchone() == before


@pytest.fixture
def plain_role(db):
    """Run as a PostgreSQL role that is no superuser and holds only the rights a deployment's
    application role has on the tables (created inside the test's transaction, so it goes
    with the rollback)."""
    with connection.cursor() as cursor:
        cursor.execute("CREATE ROLE annotate_plain_test_role NOSUPERUSER")
        cursor.execute(
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public "
            "TO annotate_plain_test_role"
        )
        cursor.execute("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO annotate_plain_test_role")
        database = connection.ops.quote_name(connection.settings_dict["NAME"])
        cursor.execute(f"GRANT TEMPORARY ON DATABASE {database} TO annotate_plain_test_role")
        cursor.execute("SET LOCAL ROLE annotate_plain_test_role")
        cursor.execute("SELECT current_setting('is_superuser')")
        assert cursor.fetchone() == ("off",)
    yield
    with connection.cursor() as cursor:
        cursor.execute("RESET ROLE")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="roles of PostgreSQL")
def test_a_role_without_superuser_rights_imports_a_run(campaign, tmp_path, plain_role):
    """The application's role need not be a superuser (it failed with "permission denied to
    set parameter session_replication_role" when the import reset that setting)."""
    summary = import_run(campaign=campaign, file=write(tmp_path, "bm25.run", RUN))
    assert (summary.created, summary.placeholders) == (4, 2)
    assert entries(Run.objects.get(name="bm25")) == [
        ("q1", "d1", 1, 12.5),
        ("q1", "d7", 2, 11.0),
        ("q2", "d2", 1, -0.25),
        ("q2", "d8", 2, -0.001),
    ]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a trigger of PostgreSQL")
@pytest.mark.parametrize(
    "table", ["annotate_document", "annotate_query", "annotate_run", "annotate_campaign"]
)
def test_a_row_that_others_point_at_cannot_be_deleted_under_them(campaign, tmp_path, table):
    """The entries' keys and the documents' campaign key have no database constraint; a
    statement trigger keeps what the constraint refused on the other side: deleting a run,
    query or document while entries still point at it, or a campaign while documents do (as
    a delete racing an import would, past Django's cascade)."""
    import_run(campaign=campaign, file=write(tmp_path, "bm25.run", RUN))
    entry = RunEntry.objects.get(document__external_id="d7")
    key = {
        "annotate_document": entry.document_id,
        "annotate_query": entry.query_id,
        "annotate_run": entry.run_id,
        "annotate_campaign": campaign.pk,
    }[table]
    if table == "annotate_campaign":  # only the documents left pointing at it
        with connection.cursor() as cursor:
            for child in ("annotate_runentry", "annotate_run", "annotate_system"):
                cursor.execute(f"DELETE FROM {child}")
            cursor.execute("DELETE FROM annotate_query WHERE campaign_id = %s", [key])
    with (
        pytest.raises(IntegrityError, match="pointing at id"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(f"DELETE FROM {table} WHERE id = %s", [key])
    assert Document.objects.filter(pk=entry.document_id).exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a trigger of PostgreSQL")
@pytest.mark.parametrize("statement", ["insert", "update"])
def test_a_document_cannot_name_a_campaign_that_does_not_exist(campaign, statement):
    missing = campaign.pk + 1000
    sql = {
        "insert": "INSERT INTO annotate_document (campaign_id, external_id, title, url, "
        "snippet, extra, is_placeholder) VALUES (%s, 'x', '', '', '', '{}', true)",
        "update": "UPDATE annotate_document SET campaign_id = %s",
    }[statement]
    with (
        pytest.raises(IntegrityError, match="which does not exist"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql, [missing])
    assert Document.objects.filter(campaign=campaign).count() == 2


def test_deleting_a_document_still_takes_its_entries_along(campaign, tmp_path):
    """Without the database constraint the cascade is Django's, as it always was."""
    import_run(campaign=campaign, file=write(tmp_path, "bm25.run", RUN))
    Document.objects.filter(campaign=campaign, external_id="d7").delete()
    assert entries(Run.objects.get(name="bm25")) == [
        ("q1", "d1", 1, 12.5),
        ("q2", "d2", 1, -0.25),
        ("q2", "d8", 2, -0.001),
    ]
    Run.objects.get(name="bm25").delete()
    assert RunEntry.objects.count() == 0
    import_run(campaign=campaign, file=write(tmp_path, "bm25.run", RUN))
    campaign.delete()
    assert (RunEntry.objects.count(), Document.objects.count()) == (0, 0)


def _document_only_indexes() -> list[str]:
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, RunEntry._meta.db_table)
    return [n for n, c in found.items() if c["index"] and c["columns"] == ["document_id"]]


def test_entries_keep_a_document_index_on_sqlite_only(db):
    """On PostgreSQL the index cost every big import about 5 s and served only deletes
    (migration 0033); SQLite's batched cascade still needs it."""
    assert bool(_document_only_indexes()) == (connection.vendor == "sqlite")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a trigger of PostgreSQL")
def test_deleting_documents_reads_the_entries_once_not_once_per_document(campaign, tmp_path):
    """The delete trigger's check, without the document index: row by row it read every
    entry once per deleted document (299 documents, a million entries: 187 s); it hashes the
    deleted ids and makes one pass. Counted by this transaction's own table statistics."""
    import_run(campaign=campaign, file=write(tmp_path, "bm25.run", RUN))
    spare = Document.objects.bulk_create(
        Document(campaign=campaign, external_id=f"spare{i}") for i in range(20)
    )
    scans = (
        "SELECT seq_scan + coalesce(idx_scan, 0) FROM pg_stat_xact_user_tables "
        "WHERE relid = 'annotate_runentry'::regclass"
    )
    with connection.cursor() as cursor:
        cursor.execute(scans)
        (before,) = cursor.fetchone()
        cursor.execute("DELETE FROM annotate_document WHERE id = ANY(%s)", [[d.pk for d in spare]])
        cursor.execute(scans)
        (after,) = cursor.fetchone()
    assert after - before == 1
    assert not Document.objects.filter(external_id__startswith="spare").exists()
