"""What the export commands share: where the text goes, and turning bad input into a
CommandError (a message, no traceback)."""

from __future__ import annotations

from collections.abc import Callable

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotate.models import Campaign
from annotate.services.exports import Export


def add_common_arguments(parser: CommandParser) -> None:
    parser.add_argument("--campaign", required=True, metavar="SLUG")
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write here instead of standard output"
    )


def campaign_by_slug(slug: str) -> Campaign:
    try:
        return Campaign.objects.get(slug=slug)
    except Campaign.DoesNotExist:
        raise CommandError(f"no campaign with slug {slug!r}") from None


def run_export(command: BaseCommand, make: Callable[[], Export], output: str | None) -> None:
    """Build the export (bad arguments become a CommandError), say what it is on standard
    error, then write its text as it is produced."""
    try:
        export = make()
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if output:
        try:
            # newline="": the text already has its line ends (CSV's are \r\n).
            with open(output, "w", encoding="utf-8", newline="") as out:
                for chunk in export.chunks:
                    out.write(chunk)
        except OSError as exc:
            raise CommandError(f"cannot write {output}: {exc.strerror}") from None
    else:
        for chunk in export.chunks:
            command.stdout.write(chunk, ending="")
        command.stdout.flush()
    command.stderr.write(export.note)
