"""Load the demo campaign and its accounts (for a local demo: `make run` calls this)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from annotate.demo.build import (
    ACCOUNTS,
    DEMO_PASSWORD,
    accounts_ensure,
    demo_build,
    demo_campaign,
    demo_delete,
)
from annotate.selectors import campaign_overview


class Command(BaseCommand):
    help = (
        "Load a small product-search campaign with two systems, a pool, a side-by-side "
        "comparison, some judgments, and the accounts manager, rater1 and rater2 "
        f"(password {DEMO_PASSWORD!r}). Does nothing if the demo is already there."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--reset",
            action="store_true",
            help="delete the demo campaign and build it again; reset the accounts' passwords",
        )
        parser.add_argument(
            "--lang",
            choices=("en", "zh"),
            default="en",
            help="en: the English demo; zh: a Chinese one (Chinese searches and listings, a "
            "zh-Hans campaign whose raters get the Chinese interface)",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="run even though DEBUG is off (never in production)",
        )

    def handle(self, *args, **options) -> None:
        if not settings.DEBUG and not options["force"]:
            # Accounts with a known password on a server others can reach are a way in.
            raise CommandError(
                "DEBUG is off: refusing to create accounts with the password "
                f"{DEMO_PASSWORD!r}. The demo is for your own machine; pass --force to insist."
            )
        self.stderr.write(
            self.style.WARNING(
                f"The demo accounts have the password {DEMO_PASSWORD!r}: "
                "for a local demo only, never on a server others can reach."
            )
        )
        with transaction.atomic():
            language = options["lang"]
            if options["reset"] and demo_delete(language):
                self.stdout.write("Deleted the demo campaign.")
            accounts = accounts_ensure(reset_passwords=options["reset"])
            campaign = demo_campaign(language)
            if campaign is not None:
                self.stdout.write("Demo data already present (use --reset to rebuild it).")
            else:
                campaign = demo_build(accounts=accounts, language=language)
                self.stdout.write(self.style.SUCCESS(f"Built the campaign {campaign.name!r}."))
        self._summary(campaign)

    def _summary(self, campaign) -> None:
        counts = campaign_overview(campaign)
        shown = ", ".join(
            f"{counts[key]} {key.replace('_', ' ')}"
            for key in ("queries", "documents", "systems", "runs", "pool_items", "grades")
        )
        self.stdout.write(f"  {shown},")
        self.stdout.write(
            f"  {counts['comparisons']} comparison, {counts['verdicts']} verdicts, "
            f"{counts['raters']} raters."
        )
        names = ", ".join(
            f"{username}{' (manager, admin)' if staff else ' (rater)'}"
            for username, staff, _ in ACCOUNTS
        )
        self.stdout.write(f"  Accounts, password {DEMO_PASSWORD!r}: {names}.")
        self.stdout.write(f"  Campaign page: {campaign.get_absolute_url()}")
