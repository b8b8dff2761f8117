"""A competitor's ranking as the label source competitor:NAME (grades from rank bands)."""

from __future__ import annotations

from django.core.management.base import CommandError

from annotate.management.commands._imports import ImportCommand
from annotate.services.labels.bands import bands_text, default_bands, parse_bands
from annotate.services.labels.competitor import FORMATS, import_competitor


class Command(ImportCommand):
    help = (
        "Import a competitor's ranked results for the campaign's queries (TREC run, or CSV "
        "qid,docno,rank with an optional header; the document may be a URL) as the label "
        "source competitor:NAME. Positions become grades by rank bands (default from the label "
        "scale: 1-3 top grade, 4-10 middle, 11-20 lowest, beyond: no label). Documents are "
        "matched by id or by normalised URL; unmatched lines are counted and skipped."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--name", required=True, help="the source is named competitor:NAME")
        parser.add_argument(
            "--bands",
            metavar="BANDS",
            help="e.g. '1-3:Good,4-10:Fair,11-20:Bad' (grades or label names)",
        )
        parser.add_argument(
            "--match",
            choices=["auto", "id", "url"],
            default="auto",
            help="match documents by id, by normalised URL, or by URL when the value has a "
            "scheme (auto, the default)",
        )
        parser.add_argument("--format", choices=FORMATS, help="default: from the file")
        parser.add_argument(
            "--replace", action="store_true", help="replace a label source of the same name"
        )

    def run_import(self, *, campaign, file, filename, progress, options):
        try:
            bands = (
                parse_bands(options["bands"], campaign=campaign)
                if options["bands"]
                else default_bands(campaign)
            )
        except ValueError as exc:
            raise CommandError(f"--bands: {exc}") from None
        self.stderr.write(f"bands: {bands_text(bands)}")
        return import_competitor(
            campaign=campaign,
            file=file,
            filename=filename,
            name=options["name"],
            bands=bands,
            match=options["match"],
            fmt=options["format"],
            replace=options["replace"],
            progress=progress,
        )
