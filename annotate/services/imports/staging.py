"""Set-based writing of a big run: parsed lines wait in a temporary table, and one statement
makes the placeholder documents and one writes the entries.

The per-batch path (a Python map of every document of the campaign, placeholders and entries
inserted 5,000 at a time) held about 125 bytes a document in the client and made the database
resolve each row on its own. Here the client only checks each line and sends it on (``COPY``
on PostgreSQL, ``executemany`` on SQLite, into a temporary table that no index slows and no
other session sees); the documents are then resolved by one join against the campaign's unique
index, the missing ones found by one anti-join, and the entries written by one
``INSERT ... SELECT`` in file order. A repeated document is left to the unique constraint; only
when it refuses is the staging table searched for the first repeated line.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils.translation import gettext as _

from annotate.models import Document, Query, RunEntry
from annotate.services.imports.fastinsert import defaults, insert_into

STAGING = "import_run_staging"
STAGING_COLUMNS = ("line", "run_id", "query_id", "docno", "rank", "score")
# Rows sent per COPY or executemany: large enough that the round trips do not count.
STAGE_BATCH = 20_000
# SQLite's page cache during a run import, in KiB (PRAGMA cache_size takes a negative size).
SQLITE_CACHE_KIB = -65_536
# PostgreSQL's work_mem for the set-based statements (a server setting, per sort or hash).
PG_WORK_MEM = "64MB"


@contextmanager
def sqlite_cache() -> Iterator[None]:
    """On SQLite, a bigger page cache for the statements inside (outside the transaction, so
    that it is put back after a failure too). The default 2 MB makes each of a million index
    probes and inserts a read through the operating system; the import's client no longer
    holds a map of every document, and the cache stays within the memory that map took. It
    changes nothing about durability."""
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        (saved,) = cursor.fetchone()
        cursor.execute(f"PRAGMA cache_size = {SQLITE_CACHE_KIB}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA cache_size = {int(saved)}")


class RunStaging:
    """The temporary table of one run import, inside the import's transaction."""

    def __init__(self, campaign_id: int) -> None:
        self.campaign_id = campaign_id
        self.rows: list[tuple[Any, ...]] = []
        self.count = 0
        self.q = connection.ops.quote_name
        self.table = self.q(STAGING)

    def __enter__(self) -> RunStaging:
        # Dropped on the way out, not ON COMMIT: a second import in the same transaction (tests,
        # a script) must find the name free. A failure rolls the CREATE back with the rest.
        self._execute(f"DROP TABLE IF EXISTS {self.table}")
        if connection.vendor == "postgresql":
            line, floats = "integer NOT NULL", "double precision"
        else:  # the row id itself: no second copy of the line number, no index to keep
            line, floats = "integer PRIMARY KEY", "real"
        self._execute(
            f"CREATE TEMPORARY TABLE {self.table} (line {line}, run_id integer NOT NULL, "
            f"query_id integer NOT NULL, docno text NOT NULL, rank integer NOT NULL, "
            f"score {floats})"
        )
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self._execute(f"DROP TABLE {self.table}")

    def add(self, row: tuple[Any, ...]) -> None:
        """One checked line: (line, run pk, query pk, document external id, rank, score)."""
        self.rows.append(row)
        self.count += 1
        if len(self.rows) >= STAGE_BATCH:
            self.flush()

    def flush(self) -> None:
        if self.rows:
            insert_into(STAGING, STAGING_COLUMNS, self.rows)
            self.rows = []

    def create_placeholders(self) -> int:
        """Insert the documents the campaign lacks; return how many. In id order, so that the
        unique index on (campaign, external id) grows at its end instead of at a million random
        places. Defaults for the other columns come from the model, as for every insert."""
        self.flush()
        template = defaults(
            Document, campaign_id=self.campaign_id, external_id="", is_placeholder=True
        )
        columns = ", ".join(self.q(c) for c in template)
        select = ", ".join("s.docno" if c == "external_id" else "%s" for c in template)
        params = [v for c, v in template.items() if c != "external_id"]
        doc = self.q(Document._meta.db_table)
        if connection.vendor == "sqlite":
            # SQLite's DISTINCT and anti-join build temporary b-trees of a million ids, slower
            # than letting the unique index turn away the ids it has. The one writer holds the
            # database, so nothing but this file's own repeats and known ids can be turned away.
            sql = (
                f"INSERT OR IGNORE INTO {doc} ({columns}) SELECT {select} FROM {self.table} s "
                "ORDER BY s.docno"
            )
            return self._execute(sql, params)
        # Sorted and compared byte by byte (collation "C"): in the database's collation the
        # sort of a million ids took three times as long (PostgreSQL gives up abbreviated keys
        # outside "C"), and equality is the same either way. The database's own order, which
        # the unique index keeps, is this one under C.UTF-8; under another the index is filled
        # in a different but still sorted order.
        sql = (
            f"INSERT INTO {doc} ({columns}) SELECT {select} FROM "
            f'(SELECT DISTINCT docno COLLATE "C" AS docno FROM {self.table}) s '
            f"WHERE NOT EXISTS (SELECT 1 FROM {doc} d WHERE d.campaign_id = %s "
            f"AND d.external_id = s.docno) ORDER BY s.docno"
        )
        return self._execute(sql, [*params, self.campaign_id])

    def insert_entries(self) -> int:
        """Write every staged line as a run entry, its document found by the campaign's unique
        index; return how many. Raises IntegrityError (inside a savepoint, so the transaction
        stays usable to look for the culprit) when a document is listed twice."""
        entry = self.q(RunEntry._meta.db_table)
        doc = self.q(Document._meta.db_table)
        columns = ", ".join(
            self.q(c) for c in ("run_id", "query_id", "document_id", "rank", "score")
        )
        sql = (
            f"INSERT INTO {entry} ({columns}) SELECT s.run_id, s.query_id, d.id, s.rank, s.score "
            f"FROM {self.table} s JOIN {doc} d ON d.campaign_id = %s AND d.external_id = s.docno "
            f"ORDER BY s.line"
        )
        with transaction.atomic():
            created = self._execute(sql, [self.campaign_id])
            if created != self.count:
                # Every staged line has its document by now; a line the join lost would be an
                # entry silently missing, so refuse rather than commit less than the file.
                raise IntegrityError(
                    _("%(n)s staged lines found no document") % {"n": self.count - created}
                )
        return created

    @contextmanager
    def checked_by_joins(self) -> Iterator[None]:
        """On PostgreSQL, prepare the set-based statements inside: statistics for the staging
        table, a larger work_mem for their sorts and hashes, and the locks that stand in for
        the foreign-key checks.

        The run entries' keys have no database constraint (see ``RunEntry``): the statements'
        joins find every referenced row, and what the checks also did is done here: the rows
        the new ones point at and did not make are locked as a check would lock them (FOR KEY
        SHARE), so that no one can delete them before this commit (a delete that waited for it
        then fails on the trigger of migration 0026); a delete that came first is waited for,
        and its document then counts as missing and becomes a placeholder. The runs are this
        import's own rows. Nothing here needs a privileged role."""
        if connection.vendor != "postgresql":
            yield
            return
        self.flush()
        # A temporary table has no statistics until it is analysed; without them the planner
        # guesses a few thousand rows and may pick nested loops over a million.
        self._execute(f"ANALYZE {self.table}")
        self._lock_referenced()
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('work_mem')")
            (saved,) = cursor.fetchone()
            # The sorts and hashes of a million staged lines; the default 4 MB spills to disk.
            cursor.execute("SELECT set_config('work_mem', %s, true)", [PG_WORK_MEM])
        # No finally: after an error the import's transaction or savepoint rolls back, and the
        # setting (local to it) with it; a failed transaction would refuse the reset anyway.
        yield
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('work_mem', %s, true)", [saved])

    def _lock_referenced(self) -> None:
        """Lock what the new entries will point at and did not make, as the foreign-key checks
        would: the queries and the documents the campaign already has. (The campaign, which
        the placeholders point at, is checked and locked by the documents' own trigger.)"""
        campaign = self.campaign_id
        doc, query = self.q(Document._meta.db_table), self.q(Query._meta.db_table)
        self._execute(
            f"WITH l AS (SELECT 1 FROM {query} x WHERE x.id IN "
            f"(SELECT query_id FROM {self.table}) FOR KEY SHARE OF x) SELECT count(*) FROM l"
        )
        self._execute(
            f"WITH l AS (SELECT 1 FROM {doc} x WHERE x.campaign_id = %s AND x.external_id IN "
            f"(SELECT docno FROM {self.table}) FOR KEY SHARE OF x) SELECT count(*) FROM l",
            [campaign],
        )

    def first_repeat(self, before: int | None = None) -> tuple[int, int, int, int, str] | None:
        """The first line (before line ``before``, if given) whose (run, query, document) an
        earlier line has: (line, earlier line, run pk, query pk, document id), or None."""
        self.flush()
        where = "WHERE line < %s" if before is not None else ""
        sql = (
            "SELECT line, first, run_id, query_id, docno FROM (SELECT line, run_id, query_id, "
            "docno, MIN(line) OVER w AS first, ROW_NUMBER() OVER (w ORDER BY line) AS n "
            f"FROM {self.table} {where} "
            "WINDOW w AS (PARTITION BY run_id, query_id, docno)) t "
            "WHERE n = 2 ORDER BY line LIMIT 1"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [before] if before is not None else [])
            row = cursor.fetchone()
        return tuple(row) if row is not None else None

    def _execute(self, sql: str, params: Sequence[Any] | None = None) -> int:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.rowcount
