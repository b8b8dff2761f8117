"""Running grouped sums over chunks of rows: the whole of a log's aggregation, in numpy.

Each chunk is concatenated with the totals so far and grouped again (lexsort, then reduceat),
so the memory held is the number of distinct keys, never the number of rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from django.utils.translation import gettext as _


def group_sums(
    keys: Sequence[np.ndarray], values: Sequence[np.ndarray]
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Distinct key tuples (sorted, first key first) and the sum of each value column over
    the rows of each."""
    n = keys[0].size
    if n == 0:
        return [k[:0] for k in keys], [v[:0] for v in values]
    order = np.lexsort(tuple(reversed(keys)))  # lexsort sorts by its last key first
    keys = [k[order] for k in keys]
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for k in keys:
        change[1:] |= k[1:] != k[:-1]
    starts = np.flatnonzero(change)
    return [k[starts] for k in keys], [np.add.reduceat(v[order], starts) for v in values]


class Sums:
    """Totals per distinct key tuple, fed chunk by chunk."""

    def __init__(self, *, keys: int, values: Sequence[str]) -> None:
        self.n_keys = keys
        self.names = tuple(values)
        self._keys: list[np.ndarray] | None = None
        self._values: list[np.ndarray] | None = None

    def add(self, keys: Sequence[np.ndarray], values: Sequence[np.ndarray]) -> None:
        if len(keys) != self.n_keys or len(values) != len(self.names):
            raise ValueError(_("a chunk must have the same columns as the totals"))
        if keys[0].size == 0:
            return
        if self._keys is not None and self._values is not None:
            keys = [np.concatenate(pair) for pair in zip(self._keys, keys, strict=True)]
            values = [np.concatenate(pair) for pair in zip(self._values, values, strict=True)]
        self._keys, self._values = group_sums(keys, values)

    def result(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        if self._keys is None or self._values is None:
            empty = np.zeros(0, dtype=np.int64)
            return [empty] * self.n_keys, [empty] * len(self.names)
        return self._keys, self._values
