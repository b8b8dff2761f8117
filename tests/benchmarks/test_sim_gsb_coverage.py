"""The GSB coverage simulation (benchmarks/sim_gsb_coverage.py) computes the library's interval,
and a few of its cells, at a tenth of the recorded size, say what benchmarks/README.md says."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

SIM_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "sim_gsb_coverage.py"


def _load_sim() -> ModuleType:
    # benchmarks/ is a folder of scripts, not a package: load the file directly.
    spec = importlib.util.spec_from_file_location("sim_gsb_coverage", SIM_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["sim_gsb_coverage"] = module
    spec.loader.exec_module(module)
    return module


sim = _load_sim()


def test_the_simulation_computes_the_interval_gsb_from_verdicts_returns():
    # Raises SystemExit at the first data set where they differ.
    assert sim.check_against_library(np.random.default_rng(7)) == 18


def test_shared_raters_are_covered_from_ten_on_and_not_with_three():
    # 400 data sets a cell (Monte Carlo SE about 0.011 at 0.95), seeded.
    ten = sim.crossed_cell(np.random.default_rng(1), 10, 0.6, 0.2, 30, 400)
    thirty = sim.crossed_cell(np.random.default_rng(2), 30, 0.3, 0.4, 100, 400)
    three = sim.crossed_cell(np.random.default_rng(3), 3, 0.6, 0.2, 100, 400)
    assert ten >= 0.93 and thirty >= 0.93
    # With 3 raters the rater clustering is left out: the interval describes these raters only.
    assert three < 0.6
