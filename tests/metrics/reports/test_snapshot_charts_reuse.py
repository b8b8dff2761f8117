"""A snapshot's charts are drawn once per set of figures they show: the same figures (whatever
else the summary says) give back the charts drawn before; any figure they show that changes,
a name included, draws them again (metrics/reports/snapshot_charts.py)."""

from __future__ import annotations

import copy

import pytest

from metrics.reports import charts, snapshot_charts


def summary(mean: float = 0.5, run_id: int = 1, name: str = "alpha") -> dict:
    values = {"ndcg_cut_10": {"mean": mean, "low": mean - 0.1, "high": mean + 0.1}}
    return {
        "systems": [
            {"run": name, "system": name, "run_id": run_id, "values": values, "curve": [mean]},
            {"run": "beta", "system": "beta", "run_id": 2, "values": values, "curve": [0.4]},
        ],
        "measures": [{"key": "ndcg_cut_10", "label": "NDCG@10"}],
        "confidence": 0.95,
        "n_queries": run_id,  # not drawn
    }


@pytest.fixture
def drawings(monkeypatch) -> list[str]:
    """The titles of the charts matplotlib really draws."""
    drawn: list[str] = []
    real = charts.svg

    def counted(fig, title):
        drawn.append(title)
        return real(fig, title)

    monkeypatch.setattr(charts, "svg", counted)
    monkeypatch.setattr(snapshot_charts, "_DRAWN", type(snapshot_charts._DRAWN)())
    return drawn


def test_the_same_figures_are_drawn_once(drawings):
    first = snapshot_charts.scores_charts(summary())
    assert set(first) == {"en", "zh-hans"} and len(drawings) == 4  # 2 charts x 2 languages
    # Another run id and query count, the same figures: nothing drawn, the same SVG.
    again = snapshot_charts.scores_charts(summary(run_id=7))
    assert again == first and len(drawings) == 4
    # What a caller does to its copy does not reach the next one.
    again["en"]["bars"] = "changed"
    assert snapshot_charts.scores_charts(summary(run_id=9)) == first


@pytest.mark.parametrize("change", [{"mean": 0.6}, {"name": "gamma"}])
def test_a_figure_or_name_that_changes_draws_again(drawings, change):
    first = copy.deepcopy(snapshot_charts.scores_charts(summary()))
    changed = snapshot_charts.scores_charts(summary(**change))
    assert len(drawings) == 8
    assert changed["en"]["bars"] != first["en"]["bars"]


def test_the_dashboard_charts_follow_the_agreement_too(drawings):
    progress = {"timeline": {"unit": "hour", "buckets": [], "series": {}}}
    agreement = {
        "raters": [{"username": "ann", "id": 1}, {"username": "bob", "id": 2}],
        "pairs": [{"a": 0, "b": 1, "shared": 5, "kappa": 0.5, "extra": 1}],
    }
    first = snapshot_charts.dashboard_charts(progress=progress, agreement=agreement)
    assert len(drawings) == 2 and set(first["en"]) == {"kappa"}
    agreement["raters"][0]["id"] = 3  # not drawn
    assert snapshot_charts.dashboard_charts(progress=progress, agreement=agreement) == first
    agreement["pairs"][0]["kappa"] = 0.25
    snapshot_charts.dashboard_charts(progress=progress, agreement=agreement)
    assert len(drawings) == 4
