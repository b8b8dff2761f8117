"""The engine's packages import their modules on first use (metrics/core/lazy.py): a process
that only sets Django up (a job worker, a command) does not pay for scipy.stats or polars."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"DJANGO_SETTINGS_MODULE": "config.settings", "PATH": "/usr/bin:/bin"},
    )
    return set(out.stdout.split())


def test_django_setup_imports_neither_scipy_stats_nor_polars():
    loaded = _modules_after("import django; django.setup()")
    assert "metrics.core.stats.rater_quality" in loaded  # the admin's path is taken
    assert "scipy.stats" not in loaded
    assert "polars" not in loaded
    assert "matplotlib" not in loaded


def test_a_name_is_imported_on_first_use_and_kept():
    loaded = _modules_after("import metrics.core.stats as s; s.compare_runs")
    assert "metrics.core.stats.compare" in loaded
    assert "metrics.core.stats.gsb" not in loaded


def test_a_name_that_is_also_its_modules_name_is_refused():
    from metrics.core.lazy import lazy_exports

    # metrics.core's evaluate() once lived in metrics/core/evaluate.py: importing that module
    # directly would have made `from metrics.core import evaluate` the module.
    with pytest.raises(ImportError, match="evaluate"):
        lazy_exports("metrics.core", {".evaluate": ("evaluate",)})
    from metrics.core import evaluate

    assert callable(evaluate)


def test_an_unknown_name_is_an_attribute_error():
    import metrics.core.stats

    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        metrics.core.stats.nothing  # noqa: B018
    assert "compare_runs" in dir(metrics.core.stats)
