"""A behaviour log (impressions, clicks, purchases per query, document and position), stored
aggregated, for click- and purchase-derived labels (derive_labels)."""

from __future__ import annotations

import os
import time

from django.core.management.base import OutputWrapper

from annotate.management.commands._imports import ImportCommand
from annotate.services.labels.logs import FORMATS, import_log


class ProgressBar:
    """A bar over the bytes of the file (``\\r``-redrawn at most five times a second), with the
    rows read, the rate and the time left; a plain line counter when the size is unknown."""

    WIDTH = 30

    def __init__(self, stream: OutputWrapper, *, enabled: bool, handle=None, size=0) -> None:
        self.stream, self.enabled = stream, enabled
        self.handle, self.size = handle, size
        self.start = time.monotonic()
        self.last = 0.0
        self.lines = 0

    def __call__(self, lines: int) -> None:
        self.lines = lines
        now = time.monotonic()
        if self.enabled and now - self.last >= 0.2:
            self.last = now
            self.draw(now)

    def draw(self, now: float) -> None:
        elapsed = max(now - self.start, 1e-9)
        rate = self.lines / elapsed
        text = f"{self.lines:,} lines, {rate:,.0f} lines/s"
        if self.size and self.handle is not None:
            done = min(self.handle.tell() / self.size, 1.0)
            filled = int(done * self.WIDTH)
            left = elapsed * (1 - done) / done if done > 0 else 0
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            text = f"[{bar}] {done:6.1%}  {text}, {left:,.0f} s left"
        self.stream.write(f"\r{text} ", ending="")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.lines:
            self.draw(time.monotonic())
            self.stream.write("")


class Command(ImportCommand):
    help = (
        "Import a behaviour log: CSV with a header, or JSONL; one row per query, document and "
        "position shown, with impressions and clicks, optionally purchases (conversions) and "
        "dwell time. Stored summed per (query, document, position) and per position over the "
        "whole log; derive labels from it with derive_labels."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--name", required=True, help="the log's name in the campaign")
        parser.add_argument(
            "--match",
            choices=["auto", "id", "url"],
            default="auto",
            help="match documents by id, by normalised URL, or by URL when the value has a "
            "scheme (auto, the default)",
        )
        parser.add_argument("--format", choices=FORMATS, help="default: from the file")
        parser.add_argument("--replace", action="store_true", help="replace a log of that name")

    def run_import(self, *, campaign, file, filename, progress, options):
        enabled = options["progress"] or self.stderr.isatty()
        if not isinstance(file, str):  # standard input: no size, a line counter
            return self._import(campaign, file, filename, progress, options)
        try:
            handle = open(file, "rb")  # noqa: SIM115 - closed below; tell() drives the bar
        except OSError:
            return self._import(campaign, file, filename, progress, options)  # reports it
        with handle:
            bar = ProgressBar(
                self.stderr, enabled=enabled, handle=handle, size=os.fstat(handle.fileno()).st_size
            )
            try:
                return self._import(campaign, handle, filename, bar, options)
            finally:
                bar.close()

    def _import(self, campaign, file, filename, progress, options):
        return import_log(
            campaign=campaign,
            file=file,
            filename=filename,
            name=options["name"],
            match=options["match"],
            fmt=options["format"],
            replace=options["replace"],
            progress=progress,
        )
