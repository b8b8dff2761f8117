"""Create a campaign with the default label scale, and give people their roles."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import IntegrityError, transaction

from annotate.models import Aggregation, Role
from annotate.services.campaigns import (
    CampaignExists,
    campaign_create,
    campaign_slug_for,
    membership_set,
)


class Command(BaseCommand):
    help = "Create a campaign (label scale Good 3 / Fair 2 / Bad 1, relevant from Fair)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--slug", help="URL name (default: from the name)")
        parser.add_argument("--manager", action="append", default=[], metavar="USERNAME")
        parser.add_argument("--rater", action="append", default=[], metavar="USERNAME")
        parser.add_argument("--overlap", type=int, default=1, help="raters per pool item")
        parser.add_argument(
            "--aggregation", choices=[a.value for a in Aggregation], default=Aggregation.MEAN
        )

    def handle(self, *args, **options) -> None:
        if options["overlap"] < 1:
            raise CommandError("--overlap must be at least 1")
        users = get_user_model().objects
        wanted = {name: Role.MANAGER for name in options["manager"]}
        wanted.update({name: Role.RATER for name in options["rater"]})
        found = {u.get_username(): u for u in users.filter(username__in=list(wanted))}
        missing = sorted(set(wanted) - set(found))
        if missing:
            raise CommandError(f"no such user: {', '.join(missing)}")
        try:
            with transaction.atomic():
                # Without --slug: made from the name in any script (篮球鞋 -> lanqiuxie),
                # numbered when another name made it first, random when nothing is left.
                slug = options["slug"] or campaign_slug_for(options["name"])
                campaign = campaign_create(
                    name=options["name"],
                    slug=slug,
                    overlap=options["overlap"],
                    aggregation=options["aggregation"],
                )
                for name, role in wanted.items():
                    membership_set(campaign=campaign, user=found[name], role=role)
        except CampaignExists as exists:  # the same command run twice
            raise CommandError(str(exists)) from None
        except IntegrityError:
            raise CommandError(f"a campaign with slug {slug!r} already exists") from None
        self.stdout.write(f"Created campaign {campaign.name!r} (slug {campaign.slug}).")
