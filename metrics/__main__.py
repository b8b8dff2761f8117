"""``python -m metrics``: evaluate TREC runs without Django (see :mod:`metrics.cli`)."""

import contextlib
import gc
import os
import sys

# A short-lived process that builds few reference cycles: the collector's passes while numpy and
# polars import (hundreds of thousands of objects) cost ~5 % of a million-line run for nothing.
gc.disable()

# polars' allocator (jemalloc) keeps freed pages for seconds by default: in a short process that
# is pure peak memory. Hand them back at once; set before polars is first imported. polars
# itself writes its default into the environment on import, so a parent process that imported
# polars passes that default down: it is replaced too (a setting of the user's is kept).
_POLARS_DEFAULT = "dirty_decay_ms:500,muzzy_decay_ms:1000"
if os.environ.get("_RJEM_MALLOC_CONF", "") in ("", _POLARS_DEFAULT):
    os.environ["_RJEM_MALLOC_CONF"] = "dirty_decay_ms:0,muzzy_decay_ms:0"

from metrics.cli import main  # noqa: E402 (after the allocator setting and gc)


def _exit_now(code: int) -> None:
    """Flush and leave without the interpreter's teardown.

    Tearing down numpy, polars and the arrays of a big evaluation (a garbage collection over
    every object, then freeing them one by one) cost about a tenth of the whole run on a
    million-line file, and nothing is left to do once the output is flushed.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    _exit_now(main())
