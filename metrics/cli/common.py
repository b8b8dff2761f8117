"""Conventions shared by the metrics commands: one-line errors, exit code 2, no traceback."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable
from typing import NoReturn, TextIO

USAGE_ERROR = 2
INTERNAL_ERROR = 1


class UsageError(Exception):
    """A bad option or argument: reported as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see --help)")


def run_command(body: Callable[[], int], *, prog: str, stdout: TextIO, stderr: TextIO) -> int:
    """Run ``body`` and turn every failure into a one-line message and an exit code.

    ``ValueError`` (bad input: ``file:line: why``, unknown measure, bad option) and
    :class:`UsageError` give exit code 2; anything unexpected gives 1 (with the traceback only
    when ``METRICS_DEBUG`` is set).
    """
    try:
        return body()
    except (UsageError, ValueError, OSError) as exc:
        message = str(exc) or type(exc).__name__
        if isinstance(exc, OSError) and exc.filename:
            message = f"{exc.filename}: {exc.strerror or exc}"
        print(f"{prog}: {message}", file=stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=stderr)
        return 130
    except SystemExit as exc:  # --help and --version exit through argparse
        return int(exc.code or 0)
    except Exception as exc:
        if os.environ.get("METRICS_DEBUG"):
            raise
        print(
            f"{prog}: internal error: {type(exc).__name__}: {exc} "
            "(set METRICS_DEBUG=1 for details)",
            file=stderr,
        )
        return INTERNAL_ERROR


def write_safely(stdout: TextIO, text: str) -> None:
    """Write output; a closed pipe (``| head``) is not an error."""
    try:
        stdout.write(text)
        stdout.flush()
    except BrokenPipeError:
        # Point stdout at devnull so the interpreter's final flush does not complain.
        devnull = os.open(os.devnull, os.O_WRONLY)
        with contextlib.suppress(OSError, ValueError):
            os.dup2(devnull, sys.stdout.fileno())
