"""The aggregation kernel (metrics.core.aggregate): pure numpy, and one ruling merge behind both
forms of the qrels (columns for the reports, a stream for the exports)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from django.contrib.auth import get_user_model

from annotate.services import aggregation
from annotate.services.adjudication import adjudication_set
from metrics.core.aggregate import merge_rulings
from tests.annotate.judgment_data import grade, pool_item

ROOT = Path(__file__).resolve().parents[3]


def test_the_whole_engine_with_the_kernel_imports_without_django():
    code = (
        "import sys, metrics.core, metrics.core.aggregate; "
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_merge_rulings_by_hand():
    # Items 3, 5, 7 aggregated; rulings on 9 (no aggregate) and 5, given out of order.
    merged = merge_rulings(
        item=np.array([3, 5, 7]),
        grade=np.array([2.0, 1.5, 2.5]),
        n=np.array([2, 2, 3]),
        ruled_item=np.array([9, 5]),
        ruled_grade=np.array([1.0, 3.0]),
    )
    assert merged.item.tolist() == [3, 5, 7, 9]
    assert merged.grade.tolist() == [2.0, 3.0, 2.5, 1.0]
    assert merged.n.tolist() == [2, 2, 3, 0]
    assert merged.adjudicated.tolist() == [False, True, False, True]
    assert merged.at.tolist() == [0, 1, 2, -1]
    assert merged.ruled_at.tolist() == [-1, 1, -1, 0]


def test_merge_rulings_without_rulings_or_grades():
    empty = np.zeros(0)
    alone = merge_rulings(
        item=empty, grade=empty, n=empty, ruled_item=np.array([4]), ruled_grade=np.array([2.0])
    )
    assert (alone.item.tolist(), alone.grade.tolist(), alone.n.tolist()) == ([4], [2.0], [0])
    plain = merge_rulings(
        item=np.array([1]),
        grade=np.array([3.0]),
        n=np.array([1]),
        ruled_item=empty,
        ruled_grade=empty,
    )
    assert plain.adjudicated.tolist() == [False] and plain.grade.tolist() == [3.0]


@pytest.mark.parametrize("form", ["columns", "stream"])
def test_both_forms_go_through_the_one_merge(personas, monkeypatch, form):
    judged = personas.campaign
    raters = [get_user_model().objects.create_user(username=f"r{i}") for i in range(2)]
    for did in ("d1", "d2"):
        item = pool_item(judged, "q1", did)
        for rater in raters:
            grade(item, rater, "Good")
    ruled = pool_item(judged, "q1", "d3")
    adjudication_set(
        campaign=judged,
        manager=personas.manager,
        item_id=ruled.pk,
        label_id=judged.labels.get(name="Bad").pk,
    )
    calls = []

    def spy(**kwargs):
        calls.append(kwargs["ruled_item"].tolist())
        return merge_rulings(**kwargs)

    monkeypatch.setattr(aggregation, "merge_rulings", spy)
    monkeypatch.setattr("metrics.core.aggregate.merge_rulings", spy)
    if form == "columns":
        lines = list(aggregation.aggregate_qrels(campaign=judged, rule="mean").rows())
    else:
        lines = list(aggregation.qrels_stream(campaign=judged, rule="mean").rows())
    assert lines == [("q1", "d1", 3.0, 2), ("q1", "d2", 3.0, 2), ("q1", "d3", 1.0, 0)]
    assert calls == [[ruled.pk]]
