"""The raw grades of a campaign, as CSV or JSONL."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from annotate.management.commands._export_common import (
    add_common_arguments,
    campaign_by_slug,
    run_export,
)
from annotate.services.exports import FORMATS, export_grades


class Command(BaseCommand):
    help = (
        "Write every grade of a campaign (can't-judge answers included) as CSV (with a header "
        "row) or JSONL."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_common_arguments(parser)
        parser.add_argument("--format", choices=FORMATS, default="csv")

    def handle(self, *args, **options) -> None:
        campaign = campaign_by_slug(options["campaign"])
        run_export(
            self,
            lambda: export_grades(campaign=campaign, fmt=options["format"]),
            options["output"],
        )
