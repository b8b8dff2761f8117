"""Pool the top k of chosen runs (TREC-style) into a campaign's pool."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotate.models import Campaign
from annotate.services.pooling import pool_from_runs


class Command(BaseCommand):
    help = (
        "Add the union of the top DEPTH documents of each run, per query, to the campaign's "
        "pool (in the ranking order: score descending, ties by document id descending). "
        "Pairs already in the pool are kept; running it twice adds nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, metavar="SLUG")
        parser.add_argument(
            "--run", action="append", required=True, metavar="NAME", help="repeat for each run"
        )
        parser.add_argument("--depth", type=int, required=True, metavar="K")
        parser.add_argument(
            "--raters",
            type=int,
            default=None,
            metavar="N",
            help="raters each new item needs (default: the campaign's overlap)",
        )

    def handle(self, *args, **options) -> None:
        if options["depth"] < 1:
            raise CommandError("--depth must be at least 1")
        if options["raters"] is not None and options["raters"] < 1:
            raise CommandError("--raters must be at least 1")
        try:
            campaign = Campaign.objects.get(slug=options["campaign"])
        except Campaign.DoesNotExist:
            raise CommandError(f"no campaign with slug {options['campaign']!r}") from None
        names = list(dict.fromkeys(options["run"]))  # keep order, drop repeats
        runs = {run.name: run for run in campaign.runs.filter(name__in=names)}
        missing = [name for name in names if name not in runs]
        if missing:
            known = ", ".join(campaign.runs.values_list("name", flat=True)) or "none"
            raise CommandError(
                f"no run named {', '.join(missing)} in {campaign.slug} (runs: {known})"
            )
        try:
            result = pool_from_runs(
                campaign=campaign,
                runs=[runs[name] for name in names],
                depth=options["depth"],
                raters_needed=options["raters"],
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(result.summary())
        for warning in result.warnings():
            self.stderr.write(self.style.WARNING(f"Warning: {warning}"))
