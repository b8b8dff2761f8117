"""`migrate`, which on SQLite also migrates the jobs database (a file beside the main one,
config/env.py), so deploying stays one command. Only from the command line: the test runner
calls migrate per alias itself, before every alias points at its test database."""

from __future__ import annotations

from django.core.management.commands.migrate import Command as MigrateCommand
from django.db import DEFAULT_DB_ALIAS

from jobs.routers import JOBS_DB, shares_database


class Command(MigrateCommand):
    def handle(self, *args, **options) -> None:
        super().handle(*args, **options)
        also_jobs = (
            getattr(self, "_called_from_command_line", False)
            and options["database"] == DEFAULT_DB_ALIAS
            and not options.get("app_label")
            and not shares_database()
        )
        if also_jobs:
            if options["verbosity"] >= 1:
                self.stdout.write(self.style.MIGRATE_HEADING("The jobs database:"))
            super().handle(*args, **{**options, "database": JOBS_DB})
