"""Check the judging tasks' counters (pool items against their grades and leases, side-by-side
tasks against their verdicts and leases), and mend them with --fix.

The triggers keep the counters exact on every write the database sees (annotate/counted.py).
What they cannot see is a restore made with triggers disabled (pg_restore
--disable-triggers), a TRUNCATE of an answer or lease table, or a hand-made SQL session that
dropped them: afterwards the judging queue would hand out too many or too few answers per
task. This command finds that, and --fix reinstalls missing triggers and recounts in one
transaction.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from annotate.counted import (
    COUNTERS,
    POOL,
    TRIGGERS,
    Counters,
    counted_recount,
    counters_as_built,
    triggers_install,
    triggers_present,
)

# Tasks whose counters differ from their answers and leases: the task, its counted, leased
# and first_lease_end, then what they should be. first_lease_end may be earlier than the
# first end (a renewal pushed that later), never later, and is empty exactly when no lease is.
_WRONG = """
SELECT p.id, p.counted, p.leased, p.first_lease_end,
    COALESCE(g.n, 0), COALESCE(l.n, 0), l.first_end
FROM {task} p
LEFT JOIN (
    SELECT {afk}, COUNT(*) AS n FROM {answer} AS g WHERE {counts} GROUP BY {afk}
) g ON g.{afk} = p.id
LEFT JOIN (
    SELECT {lfk}, COUNT(*) AS n, MIN(expires_at) AS first_end FROM {lease} GROUP BY {lfk}
) l ON l.{lfk} = p.id
WHERE p.counted <> COALESCE(g.n, 0) OR p.leased <> COALESCE(l.n, 0)
    OR (p.first_lease_end IS NULL) <> (l.first_end IS NULL) OR p.first_lease_end > l.first_end
ORDER BY p.id
"""
SHOWN = 20
# How the report names each kind's tasks and answers.
NAMES = {POOL.task_table: ("items", "item", "grades")}
TASK_NAMES = ("side-by-side tasks", "task", "verdicts")


# Answers whose gold flag is not their task's: the counters would count an answer to gold (or
# leave out one to real work). The gold service sets both in one transaction.
_GOLD_ASTRAY = """
SELECT COUNT(*) FROM {answer} a INNER JOIN {task} p ON p.id = a.{afk} WHERE a.gold <> p.gold
"""
_GOLD_MEND = """
UPDATE {answer} SET gold = (SELECT p.gold FROM {task} p WHERE p.id = {answer}.{afk})
WHERE gold <> (SELECT p.gold FROM {task} p WHERE p.id = {answer}.{afk})
"""


def gold_astray(counters: Counters, *, mend: bool = False) -> int:
    """How many answers carry another gold flag than their task; with `mend`, set theirs."""
    names = dict(answer=counters.answer_table, task=counters.task_table, afk=counters.answer_fk)
    with connection.cursor() as cursor:
        columns = connection.introspection.get_table_description(cursor, counters.answer_table)
        if "gold" not in {column.name for column in columns}:
            return 0  # a database migrated back to before gold (0026)
        cursor.execute(_GOLD_ASTRAY.format(**names))
        astray = cursor.fetchone()[0]
        if mend and astray:
            cursor.execute(_GOLD_MEND.format(**names))
    return astray


def wrong_counters(counters: Counters) -> list[tuple]:
    sql = _WRONG.format(
        task=counters.task_table,
        answer=counters.answer_table,
        afk=counters.answer_fk,
        counts=counters_as_built(connection, counters).counts.format(row="g"),
        lease=counters.lease_table,
        lfk=counters.lease_fk,
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


class Command(BaseCommand):
    help = (
        "Compare every judging task's counters (counted answers, lease rows and the first "
        "lease end, which the queue reads) with its answers and leases: pool items with their "
        "grades, side-by-side tasks with their verdicts. Checks that the triggers keeping them "
        "are installed. Exits 1 when something is wrong; --fix reinstalls the triggers and "
        "recounts every task."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--fix", action="store_true", help="reinstall triggers, recount")

    def handle(self, *args, **options) -> None:
        with transaction.atomic():
            if options["fix"] and connection.vendor == "postgresql":
                # Lock out answers and leases while recounting: none lands between count and
                # write. The task tables first, as the queue takes them: an answer holds its
                # task's row and then inserts; locking the answer table first would wait for
                # that answer while it waits for us.
                tasks = ", ".join(c.task_table for c in COUNTERS)
                rest = ", ".join(t for c in COUNTERS for t in (c.answer_table, c.lease_table))
                with connection.cursor() as cursor:
                    cursor.execute(f"LOCK TABLE {tasks} IN EXCLUSIVE MODE")
                    cursor.execute(f"LOCK TABLE {rest} IN SHARE MODE")
            missing = sorted(set(TRIGGERS) - triggers_present(connection))
            astray = {c.answer_table: gold_astray(c, mend=options["fix"]) for c in COUNTERS}
            wrong = {c.task_table: wrong_counters(c) for c in COUNTERS}
            if options["fix"] and (missing or any(wrong.values()) or any(astray.values())):
                triggers_install(connection)
                counted_recount(connection)
        self._report(missing, wrong, fixed=options["fix"], astray=astray)

    def _report(
        self,
        missing: list[str],
        wrong: dict[str, list[tuple]],
        *,
        fixed: bool,
        astray: dict[str, int],
    ) -> None:
        if not missing and not any(wrong.values()) and not any(astray.values()):
            self.stdout.write(
                "counters: every item matches its grades and leases, every side-by-side task "
                "its verdicts and leases; triggers installed."
            )
            return
        if missing:
            self.stdout.write(f"missing triggers: {', '.join(missing)}")
        for table, n in astray.items():
            if n:
                self.stdout.write(f"{n} rows of {table} whose gold flag is not their task's")
        for table, rows in wrong.items():
            if rows:
                self._report_rows(rows, *NAMES.get(table, TASK_NAMES))
        if fixed:
            self.stdout.write("fixed: triggers installed, every task recounted.")
            return
        raise CommandError("the counters are out of step; run again with --fix")

    def _report_rows(self, rows: list[tuple], plural: str, one: str, answers: str) -> None:
        self.stdout.write(
            f"{len(rows)} {plural} whose counters differ from their {answers} and leases:"
        )
        for task, counted, leased, first, n_answers, leases, first_end in rows[:SHOWN]:
            self.stdout.write(
                f"  {one} {task}: counted {counted} for {n_answers} {answers}, leased {leased} "
                f"for {leases} leases, first lease end {first} for {first_end}"
            )
        if len(rows) > SHOWN:
            self.stdout.write(f"  ... and {len(rows) - SHOWN} more")
