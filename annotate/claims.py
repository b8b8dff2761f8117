"""Database triggers behind AnswerClaim: one row per rater and task that holds any answer.

Every table that records a rater's answer to a task (grades, skips of pool items, verdicts,
skips of side-by-side tasks) gets triggers that insert the (kind, task, rater) claim beside
each row and delete it with the row. The claim table's unique key then refuses a second
answer of another form (a skip beside a grade, say) on every path, the judging mechanism's
raw SQL, the admin and bulk inserts alike, and under any race: the second insert waits on the
key until the first commits, then fails (IntegrityError), so exactly one is stored.

The triggers follow the same life as the counters' (annotate/counted.py): PostgreSQL keeps
them across migrations; on SQLite `migrate` drops them first and puts them back after.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.backends.base.base import BaseDatabaseWrapper

CLAIM_TABLE = "annotate_answerclaim"


@dataclass(frozen=True)
class ClaimSource:
    table: str
    task_fk: str
    kind: str  # "g" for a pool item, "s" for a side-by-side task


SOURCES = (
    ClaimSource("annotate_grade", "pool_item_id", "g"),
    ClaimSource("annotate_skip", "pool_item_id", "g"),
    ClaimSource("annotate_verdict", "task_id", "s"),
    ClaimSource("annotate_taskskip", "task_id", "s"),
)
CLAIM_TRIGGERS = tuple(f"{s.table}_claim_{op}" for s in SOURCES for op in ("ins", "del", "upd"))

_POSTGRES = """
CREATE OR REPLACE FUNCTION {a}_claim_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO {c} (kind, task_id, rater_id) VALUES ('{k}', NEW.{fk}, NEW.rater_id);
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION {a}_claim_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM {c} WHERE kind = '{k}' AND task_id = OLD.{fk} AND rater_id = OLD.rater_id;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION {a}_claim_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM {c} WHERE kind = '{k}' AND task_id = OLD.{fk} AND rater_id = OLD.rater_id;
    INSERT INTO {c} (kind, task_id, rater_id) VALUES ('{k}', NEW.{fk}, NEW.rater_id);
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS {a}_claim_ins ON {a};
CREATE TRIGGER {a}_claim_ins AFTER INSERT ON {a}
    FOR EACH ROW EXECUTE FUNCTION {a}_claim_ins();
DROP TRIGGER IF EXISTS {a}_claim_del ON {a};
CREATE TRIGGER {a}_claim_del AFTER DELETE ON {a}
    FOR EACH ROW EXECUTE FUNCTION {a}_claim_del();
DROP TRIGGER IF EXISTS {a}_claim_upd ON {a};
CREATE TRIGGER {a}_claim_upd AFTER UPDATE OF {fk}, rater_id ON {a} FOR EACH ROW
    WHEN (OLD.{fk} IS DISTINCT FROM NEW.{fk} OR OLD.rater_id IS DISTINCT FROM NEW.rater_id)
    EXECUTE FUNCTION {a}_claim_upd();
"""

_SQLITE = [
    """CREATE TRIGGER IF NOT EXISTS {a}_claim_ins AFTER INSERT ON {a} BEGIN
        INSERT INTO {c} (kind, task_id, rater_id) VALUES ('{k}', NEW.{fk}, NEW.rater_id);
    END""",
    """CREATE TRIGGER IF NOT EXISTS {a}_claim_del AFTER DELETE ON {a} BEGIN
        DELETE FROM {c} WHERE kind = '{k}' AND task_id = OLD.{fk} AND rater_id = OLD.rater_id;
    END""",
    """CREATE TRIGGER IF NOT EXISTS {a}_claim_upd AFTER UPDATE OF {fk}, rater_id ON {a}
    WHEN OLD.{fk} IS NOT NEW.{fk} OR OLD.rater_id IS NOT NEW.rater_id BEGIN
        DELETE FROM {c} WHERE kind = '{k}' AND task_id = OLD.{fk} AND rater_id = OLD.rater_id;
        INSERT INTO {c} (kind, task_id, rater_id) VALUES ('{k}', NEW.{fk}, NEW.rater_id);
    END""",
]


def _fill(text: str, source: ClaimSource) -> str:
    return text.format(a=source.table, c=CLAIM_TABLE, k=source.kind, fk=source.task_fk)


def claim_statements(connection: BaseDatabaseWrapper) -> list[str]:
    texts = [_POSTGRES] if connection.vendor == "postgresql" else _SQLITE
    return [_fill(text, source) for source in SOURCES for text in texts]


def claims_refill(connection: BaseDatabaseWrapper) -> None:
    """Claims from the answers stored (after the triggers were away). Where one rater holds a
    skip and an answer on one task (the race this table closes), the answer stays and the skip
    goes."""
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM annotate_skip WHERE EXISTS (SELECT 1 FROM annotate_grade g "
            "WHERE g.pool_item_id = annotate_skip.pool_item_id "
            "AND g.rater_id = annotate_skip.rater_id)"
        )
        cursor.execute(f"DELETE FROM {CLAIM_TABLE}")
        for source in SOURCES:
            if source.table == "annotate_taskskip" and not _exists(connection, source.table):
                continue
            cursor.execute(
                f"INSERT INTO {CLAIM_TABLE} (kind, task_id, rater_id) "
                f"SELECT '{source.kind}', {source.task_fk}, rater_id FROM {source.table}"
            )


def _exists(connection: BaseDatabaseWrapper, table: str) -> bool:
    with connection.cursor() as cursor:
        return table in connection.introspection.table_names(cursor)
