"""Database triggers that keep the counters of every judging task row (a pool item, a
side-by-side task): `counted` equal to the task's counted answers, `leased` to its lease rows
(live or expired), and `first_lease_end` at or before the earliest end of those leases.

The judging mechanism (annotate/judging) decides under a task's row lock whether it may take
one more answer, and finds open tasks without aggregating the whole pool; both read `counted`
instead of counting answers. Walking to the next open query, it passes every task others hold;
`leased` and `first_lease_end` tell on the row alone that all of a task's leases are live, so
it need not count them (annotate/judging/open.py). Triggers rather than Python keep them exact
on every path that writes answers or leases: the raw SQL of the judging path, the admin, the
demo's bulk inserts, and the cascades when a rater or task is deleted.

Both task kinds use the same trigger text, filled in from a `Counters` (which tables, which
foreign key, which answers count): pool items from grades and side-by-side tasks from verdicts
(neither a can't-judge nor an answer to gold counts), each with its leases. The claims of
annotate/claims.py (one answer per rater and task) live and die with these triggers.

PostgreSQL keeps its triggers across migrations. SQLite cannot: a migration that remakes a task
table (drop and rename) fails while a trigger names it, and one that remakes an answer table
silently drops the triggers. So on SQLite `migrate` drops them first and puts them back
afterwards with a recount (annotate/apps.py); PostgreSQL installs them once (0007 for grades,
0009 for leases, 0010 for side-by-side tasks).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.db.backends.base.base import BaseDatabaseWrapper

from annotate.claims import CLAIM_TRIGGERS, SOURCES, claim_statements


@dataclass(frozen=True)
class Counters:
    """Where one task kind's counters live and what feeds them."""

    task_table: str
    answer_table: str
    answer_fk: str
    lease_table: str
    lease_fk: str
    # Whether an answer row counts, as SQL over the row `{row}`; the columns it reads.
    counts: str = "TRUE"
    counts_columns: tuple[str, ...] = ()

    def answer_triggers(self) -> tuple[str, ...]:
        return tuple(f"{self.answer_table}_counted_{op}" for op in ("ins", "del", "upd"))

    def lease_triggers(self) -> tuple[str, ...]:
        return tuple(f"{self.lease_table}_held_{op}" for op in ("ins", "del", "upd"))


POOL = Counters(
    task_table="annotate_poolitem",
    answer_table="annotate_grade",
    answer_fk="pool_item_id",
    lease_table="annotate_lease",
    lease_fk="pool_item_id",
    counts="NOT {row}.cant_judge AND NOT {row}.gold",
    counts_columns=("cant_judge", "gold"),
)
TASKS = Counters(
    task_table="annotate_sxstask",
    answer_table="annotate_verdict",
    answer_fk="task_id",
    lease_table="annotate_tasklease",
    lease_fk="task_id",
    counts="NOT {row}.cant_judge AND NOT {row}.gold",
    counts_columns=("cant_judge", "gold"),
)
COUNTERS = (POOL, TASKS)

GRADE_TRIGGERS = POOL.answer_triggers()
LEASE_TRIGGERS = POOL.lease_triggers()
VERDICT_TRIGGERS = TASKS.answer_triggers()
TASK_LEASE_TRIGGERS = TASKS.lease_triggers()
TRIGGERS = GRADE_TRIGGERS + LEASE_TRIGGERS + VERDICT_TRIGGERS + TASK_LEASE_TRIGGERS + CLAIM_TRIGGERS

# Inserts and deletes come in bulk too (demo data, deleting a campaign): one statement-level
# update per statement instead of one per answer. Updates are single rows from the admin or a
# rater changing can't-judge into a label.
_POSTGRES_ANSWERS = """
CREATE OR REPLACE FUNCTION {a}_counted_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE {t} AS p SET counted = p.counted + n.n
    FROM (SELECT {fk}, count(*) AS n FROM new_rows WHERE {counts_new_rows}
          GROUP BY {fk}) AS n
    WHERE p.id = n.{fk};
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION {a}_counted_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE {t} AS p SET counted = p.counted - n.n
    FROM (SELECT {fk}, count(*) AS n FROM old_rows WHERE {counts_old_rows}
          GROUP BY {fk}) AS n
    WHERE p.id = n.{fk};
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION {a}_counted_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF {counts_old} THEN
        UPDATE {t} SET counted = counted - 1 WHERE id = OLD.{fk};
    END IF;
    IF {counts_new} THEN
        UPDATE {t} SET counted = counted + 1 WHERE id = NEW.{fk};
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS {a}_counted_ins ON {a};
CREATE TRIGGER {a}_counted_ins AFTER INSERT ON {a}
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION {a}_counted_ins();
DROP TRIGGER IF EXISTS {a}_counted_del ON {a};
CREATE TRIGGER {a}_counted_del AFTER DELETE ON {a}
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION {a}_counted_del();
DROP TRIGGER IF EXISTS {a}_counted_upd ON {a};
CREATE TRIGGER {a}_counted_upd AFTER UPDATE OF {update_columns}
    ON {a} FOR EACH ROW
    WHEN (OLD.{fk} IS DISTINCT FROM NEW.{fk}
          OR ({counts_old}) IS DISTINCT FROM ({counts_new}))
    EXECUTE FUNCTION {a}_counted_upd();
"""

# A lease's end only moves later in the judging path (renewals keep the later of the old and
# new ends, retaking an expired lease), which leaves first_lease_end a safe lower bound, so
# those updates write nothing here: a renewal touches no task row, and takes no lock beyond its
# own lease rows. An earlier end (tests, the admin) or a lease moved to another task is written
# through.
# Recomputing the first end reads the lease table in a subquery. Under READ COMMITTED, an
# UPDATE that waited for a row lock applies itself to the newest row but keeps its subqueries'
# snapshot from before the wait: a lease another transaction committed on the task meanwhile
# would be missed, leaving first_lease_end empty beside a live lease (the task then looks full
# for good). So the delete and move paths lock their tasks in a statement of their own first;
# the update after it reads a fresh snapshot. In id order, so two such deletes (a cascade, the
# admin) cannot deadlock on each other.
_POSTGRES_LEASES = """
CREATE OR REPLACE FUNCTION {l}_held_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE {t} AS p
    SET leased = p.leased + n.n, first_lease_end = LEAST(p.first_lease_end, n.first_end)
    FROM (SELECT {fk}, count(*) AS n, min(expires_at) AS first_end FROM new_leases
          GROUP BY {fk}) AS n
    WHERE p.id = n.{fk};
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION {l}_held_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The tasks first, in id order (see the note above), then the update, whose subquery
    -- must see leases committed while it waited for a task's lock.
    PERFORM 1 FROM {t}
    WHERE id IN (SELECT {fk} FROM old_leases) ORDER BY id FOR UPDATE;
    UPDATE {t} AS p
    SET leased = p.leased - n.n,
        first_lease_end = (SELECT min(l.expires_at) FROM {l} AS l
                           WHERE l.{fk} = p.id)
    FROM (SELECT {fk}, count(*) AS n FROM old_leases GROUP BY {fk}) AS n
    WHERE p.id = n.{fk};
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION {l}_held_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.{fk} IS DISTINCT FROM NEW.{fk} THEN
        PERFORM 1 FROM {t} WHERE id = OLD.{fk} FOR UPDATE;
        UPDATE {t} SET leased = leased - 1,
            first_lease_end = (SELECT min(expires_at) FROM {l}
                               WHERE {fk} = OLD.{fk})
        WHERE id = OLD.{fk};
        UPDATE {t} SET leased = leased + 1 WHERE id = NEW.{fk};
    END IF;
    UPDATE {t} SET first_lease_end = LEAST(first_lease_end, NEW.expires_at)
    WHERE id = NEW.{fk};
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS {l}_held_ins ON {l};
CREATE TRIGGER {l}_held_ins AFTER INSERT ON {l}
    REFERENCING NEW TABLE AS new_leases
    FOR EACH STATEMENT EXECUTE FUNCTION {l}_held_ins();
DROP TRIGGER IF EXISTS {l}_held_del ON {l};
CREATE TRIGGER {l}_held_del AFTER DELETE ON {l}
    REFERENCING OLD TABLE AS old_leases
    FOR EACH STATEMENT EXECUTE FUNCTION {l}_held_del();
DROP TRIGGER IF EXISTS {l}_held_upd ON {l};
CREATE TRIGGER {l}_held_upd AFTER UPDATE OF {fk}, expires_at
    ON {l} FOR EACH ROW
    WHEN (OLD.{fk} IS DISTINCT FROM NEW.{fk}
          OR NEW.expires_at < OLD.expires_at)
    EXECUTE FUNCTION {l}_held_upd();
"""

_SQLITE_ANSWERS = [
    """CREATE TRIGGER IF NOT EXISTS {a}_counted_ins AFTER INSERT ON {a}
    WHEN {counts_new} BEGIN
        UPDATE {t} SET counted = counted + 1 WHERE id = NEW.{fk};
    END""",
    """CREATE TRIGGER IF NOT EXISTS {a}_counted_del AFTER DELETE ON {a}
    WHEN {counts_old} BEGIN
        UPDATE {t} SET counted = counted - 1 WHERE id = OLD.{fk};
    END""",
    """CREATE TRIGGER IF NOT EXISTS {a}_counted_upd
    AFTER UPDATE OF {update_columns} ON {a}
    WHEN OLD.{fk} IS NOT NEW.{fk} OR ({counts_old}) IS NOT ({counts_new}) BEGIN
        UPDATE {t} SET counted = counted - 1
            WHERE id = OLD.{fk} AND {counts_old};
        UPDATE {t} SET counted = counted + 1
            WHERE id = NEW.{fk} AND {counts_new};
    END""",
]

_SQLITE_LEASES = [
    """CREATE TRIGGER IF NOT EXISTS {l}_held_ins AFTER INSERT ON {l} BEGIN
        UPDATE {t} SET leased = leased + 1,
            first_lease_end = CASE WHEN first_lease_end IS NULL
                OR NEW.expires_at < first_lease_end THEN NEW.expires_at
                ELSE first_lease_end END
        WHERE id = NEW.{fk};
    END""",
    """CREATE TRIGGER IF NOT EXISTS {l}_held_del AFTER DELETE ON {l} BEGIN
        UPDATE {t} SET leased = leased - 1,
            first_lease_end = (SELECT min(expires_at) FROM {l}
                               WHERE {fk} = OLD.{fk})
        WHERE id = OLD.{fk};
    END""",
    """CREATE TRIGGER IF NOT EXISTS {l}_held_upd
    AFTER UPDATE OF {fk}, expires_at ON {l}
    WHEN OLD.{fk} IS NOT NEW.{fk} OR NEW.expires_at < OLD.expires_at BEGIN
        UPDATE {t} SET leased = leased - 1,
            first_lease_end = (SELECT min(expires_at) FROM {l}
                               WHERE {fk} = OLD.{fk})
        WHERE id = OLD.{fk} AND OLD.{fk} IS NOT NEW.{fk};
        UPDATE {t} SET leased = leased + 1
        WHERE id = NEW.{fk} AND OLD.{fk} IS NOT NEW.{fk};
        UPDATE {t} SET first_lease_end = CASE WHEN first_lease_end IS NULL
                OR NEW.expires_at < first_lease_end THEN NEW.expires_at
                ELSE first_lease_end END
        WHERE id = NEW.{fk};
    END""",
]

_RECOUNT = """
UPDATE {t} SET counted = (
    SELECT count(*) FROM {a} AS g
    WHERE g.{afk} = {t}.id AND {counts_g}
)
"""
_RECOUNT_LEASES = """
UPDATE {t} SET
    leased = (SELECT count(*) FROM {l} AS l WHERE l.{fk} = {t}.id),
    first_lease_end = (SELECT min(l.expires_at) FROM {l} AS l WHERE l.{fk} = {t}.id)
"""


def _answer_sql(c: Counters, text: str) -> str:
    return text.format(
        a=c.answer_table,
        t=c.task_table,
        fk=c.answer_fk,
        counts_new_rows=c.counts.format(row="new_rows"),
        counts_old_rows=c.counts.format(row="old_rows"),
        counts_new=c.counts.format(row="NEW"),
        counts_old=c.counts.format(row="OLD"),
        update_columns=", ".join((c.answer_fk, *c.counts_columns)),
    )


def _lease_sql(c: Counters, text: str) -> str:
    return text.format(l=c.lease_table, t=c.task_table, fk=c.lease_fk)


def counters_as_built(connection: BaseDatabaseWrapper, c: Counters) -> Counters:
    """The counters as the tables stand: before the migrations that added the columns deciding
    which answers count (verdicts' cant_judge, 0014; answers' gold flag, 0026), only the
    columns present leave answers out (every `counts` term is `NOT {row}.<column>`)."""
    if not c.counts_columns:
        return c
    with connection.cursor() as cursor:
        columns = connection.introspection.get_table_description(cursor, c.answer_table)
    present = tuple(name for name in c.counts_columns if name in {col.name for col in columns})
    if present == c.counts_columns:
        return c
    counts = " AND ".join(f"NOT {{row}}.{name}" for name in present) or "TRUE"
    return replace(c, counts=counts, counts_columns=present)


def triggers_install(connection: BaseDatabaseWrapper, which: tuple[str, ...] = TRIGGERS) -> None:
    """Create the trigger sets named in `which` (GRADE_TRIGGERS, LEASE_TRIGGERS, ... or all;
    idempotent). A migration installs the sets whose columns it made."""
    postgres = connection.vendor == "postgresql"
    statements = []
    for c in COUNTERS:
        if set(c.answer_triggers()) <= set(which):
            c = counters_as_built(connection, c)
            answers = [_POSTGRES_ANSWERS] if postgres else _SQLITE_ANSWERS
            statements += [_answer_sql(c, text) for text in answers]
        if set(c.lease_triggers()) <= set(which):
            leases = [_POSTGRES_LEASES] if postgres else _SQLITE_LEASES
            statements += [_lease_sql(c, text) for text in leases]
    if set(CLAIM_TRIGGERS) <= set(which):
        statements += claim_statements(connection)
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


def triggers_drop(connection: BaseDatabaseWrapper) -> None:
    with connection.cursor() as cursor:
        for name in TRIGGERS:
            if connection.vendor == "postgresql":
                table = name.rsplit("_", 2)[0]
                cursor.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
                cursor.execute(f"DROP FUNCTION IF EXISTS {name}()")
            else:
                cursor.execute(f"DROP TRIGGER IF EXISTS {name}")


def triggers_present(connection: BaseDatabaseWrapper) -> set[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            tables = {c.answer_table for c in COUNTERS} | {c.lease_table for c in COUNTERS}
            tables |= {source.table for source in SOURCES}
            cursor.execute(
                "SELECT tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE c.relname = ANY(%s)",
                [sorted(tables)],
            )
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        return {row[0] for row in cursor.fetchall()} & set(TRIGGERS)


def counted_recount(
    connection: BaseDatabaseWrapper,
    *,
    leases: bool = True,
    counters: tuple[Counters, ...] = COUNTERS,
) -> None:
    """Set every task's counters from its answers and, with `leases`, its leases (after the
    triggers were away). A migration names the `counters` whose columns exist at that step."""
    with connection.cursor() as cursor:
        for c in counters:
            counts = counters_as_built(connection, c).counts.format(row="g")
            sql = _RECOUNT.format(
                t=c.task_table, a=c.answer_table, afk=c.answer_fk, counts_g=counts
            )
            cursor.execute(sql)
            if leases:
                cursor.execute(
                    _RECOUNT_LEASES.format(t=c.task_table, l=c.lease_table, fk=c.lease_fk)
                )
