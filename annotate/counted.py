"""Database triggers that keep PoolItem's counters: `counted` equal to the item's counted
grades, `leased` to its lease rows (live or expired), and `first_lease_end` at or before the
earliest end of those leases.

The queue decides under an item's row lock whether it may take one more grade, and finds open
items without aggregating the whole pool; both read `counted` instead of counting grades.
Walking the pool to the next open query, it passes every item others hold; `leased` and
`first_lease_end` tell on the row alone that all of an item's leases are live, so it need not
count them (annotate/selectors_queue.py). Triggers rather than Python keep them exact on every
path that writes grades or leases: the queue's raw SQL, the admin, the demo's bulk inserts, and
the cascades when a rater or item is deleted.

PostgreSQL keeps its triggers across migrations. SQLite cannot: a migration that remakes
annotate_poolitem (drop and rename) fails while a trigger names it, and one that remakes
annotate_grade silently drops the triggers. So on SQLite `migrate` drops them first and puts
them back afterwards with a recount (annotate/apps.py); PostgreSQL installs them once (0007
for grades, 0009 for leases).
"""

from __future__ import annotations

from django.db.backends.base.base import BaseDatabaseWrapper

GRADE_TRIGGERS = (
    "annotate_grade_counted_ins",
    "annotate_grade_counted_del",
    "annotate_grade_counted_upd",
)
LEASE_TRIGGERS = (
    "annotate_lease_held_ins",
    "annotate_lease_held_del",
    "annotate_lease_held_upd",
)
TRIGGERS = GRADE_TRIGGERS + LEASE_TRIGGERS

# Inserts and deletes come in bulk too (demo data, deleting a campaign): one statement-level
# update per statement instead of one per grade. Updates are single rows from the admin or a
# rater changing can't-judge into a label.
_POSTGRES_GRADES = """
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

# A lease's end only moves later in the queue (renewals keep the later of the old and new
# ends, retaking an expired lease), which leaves first_lease_end a safe lower bound, so those
# updates write nothing here: a renewal touches no pool item row, and takes no lock beyond its
# own lease rows. An earlier end (tests, the admin) or a lease moved to another item is written
# through.
# Recomputing the first end reads the lease table in a subquery. Under READ COMMITTED, an
# UPDATE that waited for a row lock applies itself to the newest row but keeps its subqueries'
# snapshot from before the wait: a lease another transaction committed on the item meanwhile
# would be missed, leaving first_lease_end empty beside a live lease (the item then looks full
# for good). So the delete and move paths lock their items in a statement of their own first;
# the update after it reads a fresh snapshot. In id order, so two such deletes (a cascade, the
# admin) cannot deadlock on each other.
_POSTGRES_LEASES = """
CREATE OR REPLACE FUNCTION annotate_lease_held_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE annotate_poolitem AS p
    SET leased = p.leased + n.n, first_lease_end = LEAST(p.first_lease_end, n.first_end)
    FROM (SELECT pool_item_id, count(*) AS n, min(expires_at) AS first_end FROM new_leases
          GROUP BY pool_item_id) AS n
    WHERE p.id = n.pool_item_id;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION annotate_lease_held_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The items first, in id order (see the note above), then the update, whose subquery
    -- must see leases committed while it waited for an item's lock.
    PERFORM 1 FROM annotate_poolitem
    WHERE id IN (SELECT pool_item_id FROM old_leases) ORDER BY id FOR UPDATE;
    UPDATE annotate_poolitem AS p
    SET leased = p.leased - n.n,
        first_lease_end = (SELECT min(l.expires_at) FROM annotate_lease AS l
                           WHERE l.pool_item_id = p.id)
    FROM (SELECT pool_item_id, count(*) AS n FROM old_leases GROUP BY pool_item_id) AS n
    WHERE p.id = n.pool_item_id;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION annotate_lease_held_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.pool_item_id IS DISTINCT FROM NEW.pool_item_id THEN
        PERFORM 1 FROM annotate_poolitem WHERE id = OLD.pool_item_id FOR UPDATE;
        UPDATE annotate_poolitem SET leased = leased - 1,
            first_lease_end = (SELECT min(expires_at) FROM annotate_lease
                               WHERE pool_item_id = OLD.pool_item_id)
        WHERE id = OLD.pool_item_id;
        UPDATE annotate_poolitem SET leased = leased + 1 WHERE id = NEW.pool_item_id;
    END IF;
    UPDATE annotate_poolitem SET first_lease_end = LEAST(first_lease_end, NEW.expires_at)
    WHERE id = NEW.pool_item_id;
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS annotate_lease_held_ins ON annotate_lease;
CREATE TRIGGER annotate_lease_held_ins AFTER INSERT ON annotate_lease
    REFERENCING NEW TABLE AS new_leases
    FOR EACH STATEMENT EXECUTE FUNCTION annotate_lease_held_ins();
DROP TRIGGER IF EXISTS annotate_lease_held_del ON annotate_lease;
CREATE TRIGGER annotate_lease_held_del AFTER DELETE ON annotate_lease
    REFERENCING OLD TABLE AS old_leases
    FOR EACH STATEMENT EXECUTE FUNCTION annotate_lease_held_del();
DROP TRIGGER IF EXISTS annotate_lease_held_upd ON annotate_lease;
CREATE TRIGGER annotate_lease_held_upd AFTER UPDATE OF pool_item_id, expires_at
    ON annotate_lease FOR EACH ROW
    WHEN (OLD.pool_item_id IS DISTINCT FROM NEW.pool_item_id
          OR NEW.expires_at < OLD.expires_at)
    EXECUTE FUNCTION annotate_lease_held_upd();
"""

_POSTGRES_DROP = "".join(
    f"DROP TRIGGER IF EXISTS {name} ON annotate_{name.split('_')[1]};\n"
    f"DROP FUNCTION IF EXISTS {name}();\n"
    for name in TRIGGERS
)

_SQLITE_GRADES = [
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

_SQLITE_LEASES = [
    """CREATE TRIGGER IF NOT EXISTS annotate_lease_held_ins AFTER INSERT ON annotate_lease BEGIN
        UPDATE annotate_poolitem SET leased = leased + 1,
            first_lease_end = CASE WHEN first_lease_end IS NULL
                OR NEW.expires_at < first_lease_end THEN NEW.expires_at
                ELSE first_lease_end END
        WHERE id = NEW.pool_item_id;
    END""",
    """CREATE TRIGGER IF NOT EXISTS annotate_lease_held_del AFTER DELETE ON annotate_lease BEGIN
        UPDATE annotate_poolitem SET leased = leased - 1,
            first_lease_end = (SELECT min(expires_at) FROM annotate_lease
                               WHERE pool_item_id = OLD.pool_item_id)
        WHERE id = OLD.pool_item_id;
    END""",
    """CREATE TRIGGER IF NOT EXISTS annotate_lease_held_upd
    AFTER UPDATE OF pool_item_id, expires_at ON annotate_lease
    WHEN OLD.pool_item_id IS NOT NEW.pool_item_id OR NEW.expires_at < OLD.expires_at BEGIN
        UPDATE annotate_poolitem SET leased = leased - 1,
            first_lease_end = (SELECT min(expires_at) FROM annotate_lease
                               WHERE pool_item_id = OLD.pool_item_id)
        WHERE id = OLD.pool_item_id AND OLD.pool_item_id IS NOT NEW.pool_item_id;
        UPDATE annotate_poolitem SET leased = leased + 1
        WHERE id = NEW.pool_item_id AND OLD.pool_item_id IS NOT NEW.pool_item_id;
        UPDATE annotate_poolitem SET first_lease_end = CASE WHEN first_lease_end IS NULL
                OR NEW.expires_at < first_lease_end THEN NEW.expires_at
                ELSE first_lease_end END
        WHERE id = NEW.pool_item_id;
    END""",
]

RECOUNT = """
UPDATE annotate_poolitem SET counted = (
    SELECT count(*) FROM annotate_grade AS g
    WHERE g.pool_item_id = annotate_poolitem.id AND NOT g.cant_judge
)
"""
RECOUNT_LEASES = """
UPDATE annotate_poolitem SET
    leased = (
        SELECT count(*) FROM annotate_lease AS l
        WHERE l.pool_item_id = annotate_poolitem.id
    ),
    first_lease_end = (
        SELECT min(l.expires_at) FROM annotate_lease AS l
        WHERE l.pool_item_id = annotate_poolitem.id
    )
"""


def triggers_install(connection: BaseDatabaseWrapper, which: tuple[str, ...] = TRIGGERS) -> None:
    """Create the triggers of the sets named in `which` (GRADE_TRIGGERS, LEASE_TRIGGERS or
    both; idempotent). A migration installs the set whose columns it made."""
    postgres = connection.vendor == "postgresql"
    parts = []
    if set(GRADE_TRIGGERS) <= set(which):
        parts.append(_POSTGRES_GRADES if postgres else _SQLITE_GRADES)
    if set(LEASE_TRIGGERS) <= set(which):
        parts.append(_POSTGRES_LEASES if postgres else _SQLITE_LEASES)
    with connection.cursor() as cursor:
        for part in parts:
            for statement in [part] if postgres else part:
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
                "SELECT tgname FROM pg_trigger WHERE tgrelid IN "
                "('annotate_grade'::regclass, 'annotate_lease'::regclass)"
            )
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        return {row[0] for row in cursor.fetchall()} & set(TRIGGERS)


def counted_recount(connection: BaseDatabaseWrapper, *, leases: bool = True) -> None:
    """Set every item's counters from its grades and, with `leases`, its leases (after the
    triggers were away)."""
    with connection.cursor() as cursor:
        cursor.execute(RECOUNT)
        if leases:
            cursor.execute(RECOUNT_LEASES)
