"""Bring the report snapshots up to date, e.g. from cron after a night of judging, so the first
manager to open a report in the morning does not wait for the computation."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotate.models import Campaign
from metrics.services.snapshots import snapshots_recompute


class Command(BaseCommand):
    help = (
        "Recompute the stale report snapshots (system scores under every label source, rule "
        "and settings already asked for, and the rater agreement) of one campaign or all; "
        "--force recomputes the fresh ones too."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", metavar="SLUG", help="only this campaign")
        parser.add_argument("--force", action="store_true", help="recompute fresh ones too")
        parser.add_argument(
            "--enqueue",
            action="store_true",
            help="queue one background job per campaign for the job workers instead "
            "(each campaign's jobs page shows it)",
        )

    def handle(self, *args, **options) -> None:
        campaigns = Campaign.objects.order_by("slug")
        if options["campaign"]:
            campaigns = campaigns.filter(slug=options["campaign"])
            if not campaigns.exists():
                raise CommandError(f"no campaign with slug {options['campaign']!r}")
        if options["enqueue"]:
            from jobs.services import start_recompute_job

            for campaign in campaigns:
                job = start_recompute_job(
                    campaign_id=campaign.pk, user=None, force=options["force"]
                )
                self.stdout.write(f"{campaign.slug}: queued as job {job.pk}")
            return
        for campaign in campaigns:
            for what, fresh in snapshots_recompute(campaign=campaign, force=options["force"]):
                if fresh.recomputed:
                    state = f"recomputed in {fresh.snapshot.seconds:.1f} s"
                else:
                    state = "up to date"
                self.stdout.write(f"{campaign.slug}: {what}: {state}")
