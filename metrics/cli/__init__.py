"""Command line of the metrics engine: ``python -m metrics`` and ``manage.py evaluate``.

``python -m metrics QRELS RUN [options]`` evaluates a run like trec_eval (see
:mod:`metrics.cli.evaluate`). The first argument may instead name a subcommand:

- ``compare`` -> :mod:`metrics.cli.compare` (two runs, paired statistics)
- ``gsb`` -> :mod:`metrics.cli.gsb` (side-by-side verdicts)

A subcommand module provides ``main(argv: list[str]) -> int`` writing to ``sys.stdout`` and
``sys.stderr`` (redirected here when the caller passes other streams, as ``manage.py``'s
``call_command`` does) and follows the same conventions: one-line errors on stderr, exit code
2, no traceback. A subcommand whose module is not there yet is reported as such.

Nothing here imports Django.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from typing import TextIO

from .common import USAGE_ERROR

SUBCOMMANDS = {"compare": "metrics.cli.compare", "gsb": "metrics.cli.gsb"}


def main(
    argv: list[str] | None = None,
    *,
    prog: str = "python -m metrics",
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command line; return the exit code (0 ok, 2 bad input or usage)."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    if args and args[0] in SUBCOMMANDS:
        name, module_name = args[0], SUBCOMMANDS[args[0]]
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            print(
                f"{prog}: the '{name}' command is not available ({module_name} is missing)",
                file=err,
            )
            return USAGE_ERROR
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            return int(module.main(args[1:]))
    from .evaluate import main as evaluate_main

    return evaluate_main(args, prog=prog, stdout=out, stderr=err)
