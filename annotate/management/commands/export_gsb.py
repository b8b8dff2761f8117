"""One comparison's verdicts as the CSV `python -m metrics gsb` reads, so its report can be
checked, or taken further, outside the app."""

from __future__ import annotations

import io

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotate import safecsv
from annotate.management.commands._export_common import add_common_arguments, campaign_by_slug
from metrics.decide.gsb import gsb_cli_rows


class Command(BaseCommand):
    help = (
        "Write a side-by-side comparison's verdicts as CSV for `python -m metrics gsb` "
        "(identical tasks as their implied Same verdicts)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_common_arguments(parser)
        parser.add_argument("--comparison", required=True, help="the comparison's id or name")

    def handle(self, *args, **options) -> None:
        campaign = campaign_by_slug(options["campaign"])
        key = options["comparison"]
        comparisons = campaign.comparisons.all()
        found = comparisons.filter(name=key).first()
        if found is None and key.isdigit():
            found = comparisons.filter(pk=int(key)).first()
        if found is None:
            names = ", ".join(repr(c.name) for c in comparisons) or "none"
            raise CommandError(f"no comparison {key!r} in {campaign.slug} (there are: {names})")
        rows, notes = gsb_cli_rows(found)
        self._write(rows, options["output"])
        for note in notes:
            self.stderr.write(note)

    def _write(self, rows: list[list[str]], output: str | None) -> None:
        if not output:
            text = io.StringIO()
            safecsv.writer(text, lineterminator="\n").writerows(rows)
            self.stdout.write(text.getvalue(), ending="")
            return
        try:
            with open(output, "w", encoding="utf-8", newline="") as out:
                safecsv.writer(out, lineterminator="\n").writerows(rows)
        except OSError as exc:
            raise CommandError(f"cannot write {output}: {exc.strerror}") from None
