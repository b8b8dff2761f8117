"""What the import_* commands share: the campaign and file arguments, the progress counter,
and turning an ImportFailed into a clean error (message on stderr, exit code 1, no traceback).
The leading underscore keeps Django from listing this module as a command."""

from __future__ import annotations

import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser, OutputWrapper

from annotate.models import Campaign
from annotate.services.imports import ImportFailed, ImportSummary


class ProgressCounter:
    """``\\r``-rewritten line counter with a rate, on stderr. Shown when stderr is a terminal
    (or when asked), redrawn at most five times a second so it never slows the import; the
    final count is always drawn."""

    def __init__(self, stream: OutputWrapper, *, enabled: bool) -> None:
        self.stream = stream
        self.enabled = enabled
        self.start = time.monotonic()
        self.last = 0.0
        self.lines = 0

    def __call__(self, lines: int) -> None:
        self.lines = lines
        now = time.monotonic()
        if self.enabled and now - self.last >= 0.2:
            self.last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        rate = self.lines / max(now - self.start, 1e-9)
        self.stream.write(f"\r{self.lines:,} lines read, {rate:,.0f} lines/s ", ending="")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.lines:
            self._draw(time.monotonic())
            self.stream.write("")


class ImportCommand(BaseCommand):
    """Subclasses add their options and implement ``run_import``."""

    file_help = "the file to import, or - for standard input"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help=self.file_help)
        parser.add_argument(
            "--campaign", required=True, metavar="SLUG", help="the campaign to import into"
        )
        parser.add_argument(
            "--progress",
            action="store_true",
            help="show a line counter on stderr even when it is not a terminal",
        )

    def run_import(
        self, *, campaign: Campaign, file: Any, filename: str, progress: Any, options: dict
    ) -> ImportSummary:
        raise NotImplementedError

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            campaign = Campaign.objects.get(slug=options["campaign"])
        except Campaign.DoesNotExist:
            raise CommandError(f"no campaign with slug {options['campaign']!r}") from None
        if options["file"] == "-":
            file, filename = getattr(sys.stdin, "buffer", sys.stdin), "<stdin>"
        else:
            file = filename = options["file"]
        counter = ProgressCounter(self.stderr, enabled=options["progress"] or self.stderr.isatty())
        try:
            summary = self.run_import(
                campaign=campaign, file=file, filename=filename, progress=counter, options=options
            )
        except ImportFailed as exc:
            counter.close()
            raise CommandError(f"{exc}\nNothing was imported.", returncode=1) from None
        counter.close()
        self.report(summary)

    def report(self, summary: ImportSummary) -> None:
        self.stdout.write(self.style.SUCCESS(str(summary)))
        for warning in summary.warnings:
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))
