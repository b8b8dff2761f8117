"""Check PoolItem.counted against the grades, and mend it with --fix.

The triggers keep `counted` exact on every write the database sees (annotate/counted.py).
What they cannot see is a restore made with triggers disabled (pg_restore
--disable-triggers), a TRUNCATE of the grade table, or a hand-made SQL session that dropped
them: afterwards the queue would hand out too many or too few grades per item. This command
finds that, and --fix reinstalls missing triggers and recounts in one transaction.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from annotate.counted import TRIGGERS, counted_recount, triggers_install, triggers_present

# Items whose column differs from their counted grades: (item, column, true count).
_WRONG = """
SELECT p.id, p.counted, COALESCE(g.n, 0)
FROM annotate_poolitem p
LEFT JOIN (
    SELECT pool_item_id, COUNT(*) AS n FROM annotate_grade WHERE NOT cant_judge
    GROUP BY pool_item_id
) g ON g.pool_item_id = p.id
WHERE p.counted <> COALESCE(g.n, 0)
ORDER BY p.id
"""
SHOWN = 20


class Command(BaseCommand):
    help = (
        "Compare every pool item's counted grades (the column the queue reads) with its "
        "grades, and check that the triggers keeping it are installed. Exits 1 when something "
        "is wrong; --fix reinstalls the triggers and recounts every item."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--fix", action="store_true", help="reinstall triggers, recount")

    def handle(self, *args, **options) -> None:
        with transaction.atomic():
            if options["fix"] and connection.vendor == "postgresql":
                # Lock out grades while recounting, so none lands between count and write.
                with connection.cursor() as cursor:
                    cursor.execute("LOCK TABLE annotate_grade IN SHARE MODE")
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
            self.stdout.write("counted: every item matches its grades; triggers installed.")
            return
        if missing:
            self.stdout.write(f"missing triggers: {', '.join(missing)}")
        if wrong:
            self.stdout.write(f"{len(wrong)} items whose counted differs from their grades:")
            for item, column, truth in wrong[:SHOWN]:
                self.stdout.write(f"  item {item}: counted {column}, grades {truth}")
            if len(wrong) > SHOWN:
                self.stdout.write(f"  ... and {len(wrong) - SHOWN} more")
        if fixed:
            self.stdout.write("fixed: triggers installed, every item recounted.")
            return
        raise CommandError("counted is out of step; run again with --fix")
