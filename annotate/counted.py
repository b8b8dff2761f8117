"""Database triggers that keep PoolItem.counted equal to the item's counted grades.

The queue decides under an item's row lock whether it may take one more grade, and finds open
items without aggregating the whole pool; both read `counted` instead of counting grades.
Triggers rather than Python keep it exact on every path that writes grades: the queue's raw
SQL, the admin, the demo's bulk inserts, and the cascades when a rater or item is deleted.

PostgreSQL keeps its triggers across migrations. SQLite cannot: a migration that remakes
annotate_poolitem (drop and rename) fails while a trigger names it, and one that remakes
annotate_grade silently drops the triggers. So on SQLite `migrate` drops them first and puts
them back afterwards with a recount (annotate/apps.py); PostgreSQL installs them once (0007).
"""

from __future__ import annotations

from django.db.backends.base.base import BaseDatabaseWrapper

TRIGGERS = (
    "annotate_grade_counted_ins",
    "annotate_grade_counted_del",
    "annotate_grade_counted_upd",
)

# Inserts and deletes come in bulk too (demo data, deleting a campaign): one statement-level
# update per statement instead of one per grade. Updates are single rows from the admin or a
# rater changing can't-judge into a label.
_POSTGRES = """
CREATE OR REPLACE FUNCTION annotate_grade_counted_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE annotate_poolitem AS p SET counted = p.counted + n.n
    FROM (SELECT pool_item_id, count(*) AS n FROM new_grades WHERE NOT cant_judge
          GROUP BY pool_item_id) AS n
    WHERE p.id = n.pool_item_id;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION annotate_grade_counted_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE annotate_poolitem AS p SET counted = p.counted - n.n
    FROM (SELECT pool_item_id, count(*) AS n FROM old_grades WHERE NOT cant_judge
          GROUP BY pool_item_id) AS n
    WHERE p.id = n.pool_item_id;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION annotate_grade_counted_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT OLD.cant_judge THEN
        UPDATE annotate_poolitem SET counted = counted - 1 WHERE id = OLD.pool_item_id;
    END IF;
    IF NOT NEW.cant_judge THEN
        UPDATE annotate_poolitem SET counted = counted + 1 WHERE id = NEW.pool_item_id;
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS annotate_grade_counted_ins ON annotate_grade;
CREATE TRIGGER annotate_grade_counted_ins AFTER INSERT ON annotate_grade
    REFERENCING NEW TABLE AS new_grades
    FOR EACH STATEMENT EXECUTE FUNCTION annotate_grade_counted_ins();
DROP TRIGGER IF EXISTS annotate_grade_counted_del ON annotate_grade;
CREATE TRIGGER annotate_grade_counted_del AFTER DELETE ON annotate_grade
    REFERENCING OLD TABLE AS old_grades
    FOR EACH STATEMENT EXECUTE FUNCTION annotate_grade_counted_del();
DROP TRIGGER IF EXISTS annotate_grade_counted_upd ON annotate_grade;
CREATE TRIGGER annotate_grade_counted_upd AFTER UPDATE OF pool_item_id, cant_judge
    ON annotate_grade FOR EACH ROW
    WHEN (OLD.pool_item_id IS DISTINCT FROM NEW.pool_item_id
          OR OLD.cant_judge IS DISTINCT FROM NEW.cant_judge)
    EXECUTE FUNCTION annotate_grade_counted_upd();
"""

_POSTGRES_DROP = """
DROP TRIGGER IF EXISTS annotate_grade_counted_ins ON annotate_grade;
DROP TRIGGER IF EXISTS annotate_grade_counted_del ON annotate_grade;
DROP TRIGGER IF EXISTS annotate_grade_counted_upd ON annotate_grade;
DROP FUNCTION IF EXISTS annotate_grade_counted_ins();
DROP FUNCTION IF EXISTS annotate_grade_counted_del();
DROP FUNCTION IF EXISTS annotate_grade_counted_upd();
"""

_SQLITE = [
    """CREATE TRIGGER IF NOT EXISTS annotate_grade_counted_ins AFTER INSERT ON annotate_grade
    WHEN NOT NEW.cant_judge BEGIN
        UPDATE annotate_poolitem SET counted = counted + 1 WHERE id = NEW.pool_item_id;
    END""",
    """CREATE TRIGGER IF NOT EXISTS annotate_grade_counted_del AFTER DELETE ON annotate_grade
    WHEN NOT OLD.cant_judge BEGIN
        UPDATE annotate_poolitem SET counted = counted - 1 WHERE id = OLD.pool_item_id;
    END""",
    """CREATE TRIGGER IF NOT EXISTS annotate_grade_counted_upd
    AFTER UPDATE OF pool_item_id, cant_judge ON annotate_grade
    WHEN OLD.pool_item_id IS NOT NEW.pool_item_id OR OLD.cant_judge IS NOT NEW.cant_judge BEGIN
        UPDATE annotate_poolitem SET counted = counted - 1
            WHERE id = OLD.pool_item_id AND NOT OLD.cant_judge;
        UPDATE annotate_poolitem SET counted = counted + 1
            WHERE id = NEW.pool_item_id AND NOT NEW.cant_judge;
    END""",
]

RECOUNT = """
UPDATE annotate_poolitem SET counted = (
    SELECT count(*) FROM annotate_grade AS g
    WHERE g.pool_item_id = annotate_poolitem.id AND NOT g.cant_judge
)
"""


def triggers_install(connection: BaseDatabaseWrapper) -> None:
    """Create the triggers (idempotent)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(_POSTGRES)
        else:
            for statement in _SQLITE:
                cursor.execute(statement)


def triggers_drop(connection: BaseDatabaseWrapper) -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(_POSTGRES_DROP)
        else:
            for name in TRIGGERS:
                cursor.execute(f"DROP TRIGGER IF EXISTS {name}")


def triggers_present(connection: BaseDatabaseWrapper) -> set[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT tgname FROM pg_trigger WHERE tgrelid = 'annotate_grade'::regclass"
            )
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        return {row[0] for row in cursor.fetchall()} & set(TRIGGERS)


def counted_recount(connection: BaseDatabaseWrapper) -> None:
    """Set every item's count from its grades (after the triggers were away)."""
    with connection.cursor() as cursor:
        cursor.execute(RECOUNT)
