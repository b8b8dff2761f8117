"""Check PoolItem's counters against the grades and leases, and mend them with --fix.

The triggers keep the counters exact on every write the database sees (annotate/counted.py).
What they cannot see is a restore made with triggers disabled (pg_restore
--disable-triggers), a TRUNCATE of the grade or lease table, or a hand-made SQL session that
dropped them: afterwards the queue would hand out too many or too few grades per item. This
command finds that, and --fix reinstalls missing triggers and recounts in one transaction.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from annotate.counted import TRIGGERS, counted_recount, triggers_install, triggers_present

# Items whose counters differ from their grades and leases: the item, its counted, leased
# and first_lease_end, then what they should be. first_lease_end may be earlier than the
# first end (a renewal pushed that later), never later, and is empty exactly when no lease is.
_WRONG = """
SELECT p.id, p.counted, p.leased, p.first_lease_end,
    COALESCE(g.n, 0), COALESCE(l.n, 0), l.first_end
FROM annotate_poolitem p
LEFT JOIN (
    SELECT pool_item_id, COUNT(*) AS n FROM annotate_grade WHERE NOT cant_judge
    GROUP BY pool_item_id
) g ON g.pool_item_id = p.id
LEFT JOIN (
    SELECT pool_item_id, COUNT(*) AS n, MIN(expires_at) AS first_end FROM annotate_lease
    GROUP BY pool_item_id
) l ON l.pool_item_id = p.id
WHERE p.counted <> COALESCE(g.n, 0) OR p.leased <> COALESCE(l.n, 0)
    OR (p.first_lease_end IS NULL) <> (l.first_end IS NULL) OR p.first_lease_end > l.first_end
ORDER BY p.id
"""
SHOWN = 20


class Command(BaseCommand):
    help = (
        "Compare every pool item's counters (counted grades, lease rows and the first lease "
        "end, which the queue reads) with its grades and leases, and check that the triggers "
        "keeping them are installed. Exits 1 when something is wrong; --fix reinstalls the "
        "triggers and recounts every item."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--fix", action="store_true", help="reinstall triggers, recount")

    def handle(self, *args, **options) -> None:
        with transaction.atomic():
            if options["fix"] and connection.vendor == "postgresql":
                # Lock out grades and leases while recounting: none lands between count and
                # write. The pool items first, as the queue takes them: a grade holds its item's
                # row and then inserts; locking the grade table first would wait for that grade
                # while it waits for us.
                with connection.cursor() as cursor:
                    cursor.execute("LOCK TABLE annotate_poolitem IN EXCLUSIVE MODE")
                    cursor.execute("LOCK TABLE annotate_grade, annotate_lease IN SHARE MODE")
            missing = sorted(set(TRIGGERS) - triggers_present(connection))
            with connection.cursor() as cursor:
                cursor.execute(_WRONG)
                wrong = cursor.fetchall()
            if options["fix"] and (missing or wrong):
                triggers_install(connection)
                counted_recount(connection)
        self._report(missing, wrong, fixed=options["fix"])

    def _report(self, missing: list[str], wrong: list[tuple], *, fixed: bool) -> None:
        if not missing and not wrong:
            self.stdout.write(
                "counters: every item matches its grades and leases; triggers installed."
            )
            return
        if missing:
            self.stdout.write(f"missing triggers: {', '.join(missing)}")
        if wrong:
            self.stdout.write(
                f"{len(wrong)} items whose counters differ from their grades and leases:"
            )
            for item, counted, leased, first, grades, leases, first_end in wrong[:SHOWN]:
                self.stdout.write(
                    f"  item {item}: counted {counted} for {grades} grades, leased {leased} "
                    f"for {leases} leases, first lease end {first} for {first_end}"
                )
            if len(wrong) > SHOWN:
                self.stdout.write(f"  ... and {len(wrong) - SHOWN} more")
        if fixed:
            self.stdout.write("fixed: triggers installed, every item recounted.")
            return
        raise CommandError("the counters are out of step; run again with --fix")
