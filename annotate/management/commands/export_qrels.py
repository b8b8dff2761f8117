"""TREC qrels of a campaign: its raters' grades aggregated, or an imported label source."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from annotate.management.commands._export_common import (
    add_common_arguments,
    campaign_by_slug,
    run_export,
)
from annotate.models import Aggregation
from annotate.services.exports import export_qrels


class Command(BaseCommand):
    help = (
        "Write TREC qrels (qid 0 docno grade). Grades are aggregated by the campaign's rule or "
        "--aggregation (can't-judge answers left out; majority ties go to the lower grade; an "
        "even median is the mean of the two middle grades) and rounded half up to whole "
        "grades unless --real. The rule is printed on standard error, never in the qrels, "
        "which trec_eval must read as they are."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_common_arguments(parser)
        labels = parser.add_mutually_exclusive_group()
        labels.add_argument(
            "--aggregation", choices=[a.value for a in Aggregation], help="default: the campaign's"
        )
        labels.add_argument("--source", metavar="NAME", help="an imported label source instead")
        parser.add_argument("--real", action="store_true", help="keep real-valued grades")

    def handle(self, *args, **options) -> None:
        campaign = campaign_by_slug(options["campaign"])
        run_export(
            self,
            lambda: export_qrels(
                campaign=campaign,
                rule=options["aggregation"],
                source_name=options["source"],
                real=options["real"],
            ),
            options["output"],
        )
