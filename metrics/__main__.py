"""``python -m metrics``: evaluate TREC runs without Django (see :mod:`metrics.cli`)."""

import os
import sys

# polars' allocator (jemalloc) keeps freed pages for seconds by default: in a short process that
# is pure peak memory. Hand them back at once; set before polars is first imported.
os.environ.setdefault("_RJEM_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")

from metrics.cli import main  # after the allocator setting

if __name__ == "__main__":
    sys.exit(main())
