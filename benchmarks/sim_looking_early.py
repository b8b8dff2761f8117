"""Looking early: a truly equal candidate, a manager who reads the decision after every
answered query (from n_min = 30 on), 4,000 seeded sequences of 300 queries. How often does
anything ever say "Launch"? Run: .venv/bin/python benchmarks/sim_looking_early.py"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import norm

# Run as a script from the repository: its root is not on the path otherwise.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.core.stats.sequence import ever_excluded

REPS, LOOKS, N_MIN = 4000, 300, 30


def fixed_launch(x: np.ndarray, confidence: float) -> np.ndarray:
    t = np.arange(1, x.shape[1] + 1)
    mean = np.cumsum(x, axis=1) / t
    var = np.cumsum(x**2, axis=1) / t - mean**2
    low = mean - norm.ppf(1 - (1 - confidence) / 2) * np.sqrt(var / t)
    return (low[:, N_MIN - 1 :] > 0).any(axis=1)


def main() -> None:
    rng = np.random.default_rng(20261125)
    print("share Same | fixed interval, every look | fixed, once at 300 | sequence, every look")
    print("(sequence: 0 excluded either way at some look, an upper bound on wrong launches)")
    for same in (0.2, 0.5, 0.8):
        p = ((1 - same) / 2, same, (1 - same) / 2)
        x = rng.choice([-1, 0, 1], size=(REPS, LOOKS), p=p)
        start = time.perf_counter()
        every = fixed_launch(x, 0.95).mean()
        mean = x.mean(axis=1)
        sd = np.sqrt((x**2).mean(axis=1) - mean**2)
        once = (mean - norm.ppf(0.975) * sd / np.sqrt(LOOKS) > 0).mean()
        seq = ever_excluded(x, 0.0, 0.95).mean()
        took = time.perf_counter() - start
        print(f"{same:.1f} | {every:.3f} | {once:.3f} | {seq:.3f} [{took:.1f} s]")


if __name__ == "__main__":
    main()
