"""``manage.py evaluate``: the same command as ``python -m metrics``, inside the project.

Every argument goes to :func:`metrics.cli.main` untouched, so trec_eval's flags (``-q``, ``-c``,
``-m``, ``-l2``, ``-M100``, ``-J``) and the subcommands (``evaluate compare ...``,
``evaluate gsb ...``) work as on the plain command line. From the shell, Django's own options
are not parsed by this command (``--settings`` and ``--pythonpath`` are still honoured, by
``manage.py`` itself, before the command runs): ``-v`` would be Django's verbosity, and
trec_eval has no use for it.

From code, ``call_command("evaluate", "qrels.txt", "run.txt", "-m", "map", stdout=buf)`` works
too; there, put the file names first: Django parses the call before handing the rest over.
"""

from __future__ import annotations

import argparse
import sys

from django.core.management.base import BaseCommand, CommandError

from metrics.cli import main


class Command(BaseCommand):
    help = (
        "Evaluate a TREC run against qrels like trec_eval (python -m metrics --help for options)."
    )

    def run_from_argv(self, argv: list[str]) -> None:
        # argv: [manage.py, evaluate, ...]. Bypass Django's parser so that no flag clashes.
        prog = f"{argv[0].rsplit('/', 1)[-1]} {argv[1]}"
        sys.exit(main(argv[2:], prog=prog))

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("args", nargs=argparse.REMAINDER, help="as for python -m metrics")

    def handle(self, *args: str, **options) -> None:
        # The raw streams: OutputWrapper would add a second newline after print().
        code = main(
            list(args), prog="manage.py evaluate", stdout=self.stdout._out, stderr=self.stderr._out
        )
        if code:
            raise CommandError(f"evaluate failed (exit code {code})", returncode=code)
