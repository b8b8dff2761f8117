"""Labels from a stored behaviour log: clicks (a position-based click model, or the earlier
clicks over CTR(p)), or purchases."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotate.models import BehaviourLog, Campaign
from annotate.services.imports import ImportFailed
from annotate.services.labels.clicks import (
    DEFAULT_MIN_EXPECTED_CLICKS,
    DEFAULT_MIN_IMPRESSIONS,
    MODELS,
    derive_clicks,
    parse_thresholds,
)
from annotate.services.labels.purchases import derive_purchases


class Command(BaseCommand):
    help = (
        "Derive a label source from a behaviour log (import_logs). 'clicks': a position-based "
        "click model fitted by EM; each document's clicks over the clicks an average document "
        "of its query would have had in the same places, shrunk toward the query's mean, "
        "mapped to the label scale by thresholds (default 1.5, then halving); fewer than "
        f"{DEFAULT_MIN_EXPECTED_CLICKS:g} expected clicks: too little data, no label "
        "(--model ctr: the earlier clicks over CTR(p) pooled over the whole log). Stored as "
        "clicks:NAME. 'purchases': bought = the top grade, shown and not bought = 0; stored "
        "as purchases:NAME."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("method", choices=["clicks", "purchases"])
        parser.add_argument("--campaign", required=True, metavar="SLUG")
        parser.add_argument("--log", required=True, metavar="LOG", help="the log's name")
        parser.add_argument(
            "--name", metavar="NAME", help="the source is METHOD:NAME (default: the log's name)"
        )
        parser.add_argument(
            "--model", choices=MODELS, default="pbm",
            help="clicks: pbm (the click model, default) or ctr (the earlier method)",
        )  # fmt: skip
        parser.add_argument(
            "--min-expected-clicks", type=float, default=DEFAULT_MIN_EXPECTED_CLICKS,
            help=f"clicks (pbm): too little data below this (default "
            f"{DEFAULT_MIN_EXPECTED_CLICKS:g})",
        )  # fmt: skip
        parser.add_argument(
            "--min-impressions",
            type=int,
            help=f"no label below this (purchases: default 1; clicks --model ctr: "
            f"{DEFAULT_MIN_IMPRESSIONS})",
        )
        parser.add_argument(
            "--thresholds", metavar="T1,T2", help="clicks: ratio thresholds, highest first"
        )
        parser.add_argument("--bought-grade", type=float, help="purchases: default the top grade")
        parser.add_argument(
            "--not-bought-grade", type=float, default=0.0, help="purchases: default 0"
        )
        parser.add_argument("--replace", action="store_true", help="replace a source of the name")

    def handle(self, *args, **options) -> None:
        try:
            campaign = Campaign.objects.get(slug=options["campaign"])
            log = BehaviourLog.objects.get(campaign=campaign, name=options["log"])
        except Campaign.DoesNotExist:
            raise CommandError(f"no campaign with slug {options['campaign']!r}") from None
        except BehaviourLog.DoesNotExist:
            known = ", ".join(campaign.behaviour_logs.values_list("name", flat=True)) or "none"
            raise CommandError(f"no log {options['log']!r} (logs: {known})") from None
        name = options["name"] or log.name
        try:
            if options["method"] == "clicks":
                thresholds = options["thresholds"]
                summary = derive_clicks(
                    log=log,
                    name=name,
                    model=options["model"],
                    min_expected_clicks=options["min_expected_clicks"],
                    min_impressions=options["min_impressions"],
                    thresholds=parse_thresholds(thresholds) if thresholds else None,
                    replace=options["replace"],
                )
            else:
                summary = derive_purchases(
                    log=log,
                    name=name,
                    bought_grade=options["bought_grade"],
                    not_bought_grade=options["not_bought_grade"],
                    min_impressions=1
                    if options["min_impressions"] is None
                    else options["min_impressions"],
                    replace=options["replace"],
                )
        except (ValueError, ImportFailed) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(str(summary)))
        for warning in summary.warnings:
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))
