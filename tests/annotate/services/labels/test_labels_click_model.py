"""Click labels from the position-based click model, on simulated logs with known relevance
(benchmarks/sim_clicks.py, seeded): better than the earlier clicks over CTR(p); blind to a
query's own click propensity; "too little data" instead of a guess; comparable with the raters
in the label-sources report, and never exported or scored when there is too little data."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from scipy.stats import poisson

from annotate.models import BehaviourLog, Document, LabelSource, SourceLabel
from annotate.services.campaigns import campaign_create
from annotate.services.labels.clicks import derive_clicks
from annotate.services.labels.logs import import_log
from metrics.reports.views.sources import describe
from metrics.services.label_sources import sources_report
from tests.annotate.import_support import add_queries, write

SIM_PATH = Path(__file__).resolve().parents[4] / "benchmarks" / "sim_clicks.py"


def _load_sim():
    # benchmarks/ is a folder of scripts, not a package: load the file directly.
    spec = importlib.util.spec_from_file_location("sim_clicks", SIM_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["sim_clicks"] = module  # dataclasses look the module up
    spec.loader.exec_module(module)
    return module


sim = _load_sim()


@pytest.mark.parametrize("seed", [0, 1])
def test_the_click_model_recovers_true_grades_better_than_ctr_per_position(seed):
    out = sim.evaluate(sim.Spec(queries=150, seed=seed))
    old, new = out["old"], out["new"]
    assert old.pairs == new.pairs > 500  # the same pairs: those both methods label
    assert new.accuracy >= old.accuracy + 0.10
    assert new.rho_grade >= old.rho_grade + 0.10  # scipy.stats.spearmanr, labels vs truth
    assert new.rho_score >= old.rho_score + 0.10  # the ratios behind them
    assert out["too_little_data"] > 0  # the log has thin pairs, and they are not guessed


def _query_labels(labels: dict, query: int) -> dict:
    return {pair: grade for pair, (_, grade) in labels.items() if pair[0] == query}


@pytest.mark.parametrize("factor", [0.5, 2.0])
def test_scaling_one_querys_click_propensity_changes_none_of_its_labels(factor):
    # Query 0: 20,000 searches, propensity 1; the other 29 as drawn, with as many searches
    # between them (query 0 does not set the click-through rate per position alone).
    base = {"queries": 30, "seed": 5, "sessions": 700, "sessions_of": {0: 20_000},
            "propensity_of": {0: 1.0}}  # fmt: skip
    before = sim.simulate(sim.Spec(**base))
    after = sim.simulate(sim.Spec(**base, scale={0: factor}))
    assert after.clicks[after.query == 0].sum() != before.clicks[before.query == 0].sum()
    new_before, _ = sim.new_labels(before)
    new_after, _ = sim.new_labels(after)
    labels = _query_labels(new_before, 0)
    assert len(labels) == 10 and len(set(labels.values())) > 1
    assert _query_labels(new_after, 0) == labels
    # Today's method reads the propensity as relevance: the same scaling moves its labels.
    assert _query_labels(sim.old_labels(after), 0) != _query_labels(sim.old_labels(before), 0)


def _searches(log) -> np.ndarray:
    """Per query, its searches (every document is shown on every search)."""
    first = log.document == 0
    return np.bincount(log.query[first], weights=log.impressions[first])


def _grades(log) -> dict:
    s = sim.click_model_scores(
        query=log.query, document=log.document, position=log.position,
        impressions=log.impressions, clicks=log.clicks,
    )  # fmt: skip
    grade = sim.ratio_grades(s.ratio, sim.default_thresholds(3), sim.GRADES)
    pairs = zip(s.query_id.tolist(), s.document_id.tolist(), strict=True)
    # None: too little data; the floor's verdict must not move either.
    verdicts = zip(pairs, grade.tolist(), s.enough.tolist(), strict=True)
    return {p: (g if ok else None) for p, g, ok in verdicts}


def _median_sized(log, factor: float, n: int = 4) -> list[int]:
    """The n queries nearest the median in searches whose clicks can be multiplied by factor
    (clicks at most impressions)."""
    searches = _searches(log)
    room = np.ones(searches.size, dtype=bool)
    np.logical_and.at(room, log.query, log.clicks * factor <= log.impressions)
    by_size = np.argsort(searches)
    middle = by_size[np.argsort(np.abs(np.arange(by_size.size) - by_size.size // 2))]
    return [int(q) for q in middle if room[q]][:n]


@pytest.mark.parametrize("factor", [0.5, 2.0])
def test_multiplying_a_median_sized_querys_clicks_changes_none_of_its_labels(factor):
    # 120 queries as the benchmark draws them; each of four median-sized ones (about 150
    # searches, a hundred clicks), alone, has its clicks doubled, or halved (from a log where
    # they are even, so that halving is exact).
    log = sim.simulate(sim.Spec(queries=120, seed=0))
    if factor < 1:
        log = dataclasses.replace(log, clicks=log.clicks // 2 * 2)
    for q in _median_sized(log, factor):
        assert 100 <= _searches(log)[q] <= 200
        scaled = np.where(log.query == q, log.clicks * factor, log.clicks).astype(np.int64)
        after = _grades(dataclasses.replace(log, clicks=scaled))
        labels = {p: g for p, g in _grades(log).items() if p[0] == q}
        assert len(labels) == 10 and len(set(labels.values()) - {None}) > 1
        assert {p: g for p, g in after.items() if p[0] == q} == labels


def _mean_shift(before: dict, after: dict, queries: set) -> float:
    both = [p for p in before if p[0] in queries and p in after]
    return float(np.mean([after[p][1] - before[p][1] for p in both]))


def test_a_propensity_change_of_median_sized_queries_does_not_shift_their_labels():
    # The clicks of a query whose propensity changes are a new draw (for a median-sized query,
    # a document's 4 clicks can become 3 at x0.5, not 2), so a label near a threshold may move
    # either way: what must not happen is that it moves one way. 40 median-sized queries get
    # x2, 40 others x0.5, in one log.
    spec = sim.Spec(queries=240, seed=3)
    log = sim.simulate(spec)
    middle = np.argsort(_searches(log))[80:160].tolist()
    up, down = set(middle[::2]), set(middle[1::2])
    scale = {q: 2.0 for q in up} | {q: 0.5 for q in down}
    after = sim.simulate(dataclasses.replace(spec, scale=scale))
    new_before, _ = sim.new_labels(log)
    new_after, _ = sim.new_labels(after)
    for group in (up, down):
        assert abs(_mean_shift(new_before, new_after, group)) < 0.1
    # Nor does the floor: as many of the x0.5 queries' pairs keep a label, give or take 2%.
    kept = [len([p for p in labels if p[0] in down]) for labels in (new_before, new_after)]
    assert abs(kept[1] - kept[0]) <= 0.02 * kept[0]
    # The earlier method reads the propensity as relevance: its grades move with it.
    old_before, old_after = sim.old_labels(log), sim.old_labels(after)
    assert _mean_shift(old_before, old_after, up) > 0.3
    assert _mean_shift(old_before, old_after, down) < -0.3


def test_a_document_with_few_expected_clicks_gets_too_little_data():
    log = sim.simulate(sim.Spec(queries=40, seed=2, sessions=60))
    scores = sim.click_model_scores(
        query=log.query, document=log.document, position=log.position,
        impressions=log.impressions, clicks=log.clicks, min_expected=5,
    )  # fmt: skip
    thin = scores.evidence < 5
    assert thin.any() and (~thin).any()
    labelled, too_little = sim.new_labels(log, min_expected=5)
    assert too_little == int(thin.sum())
    pairs = list(
        zip(scores.query_id[thin].tolist(), scores.document_id[thin].tolist(), strict=True)
    )
    assert not any(pair in labelled for pair in pairs)
    # Shown 20 times or more, so today's method graded some of them all the same.
    old = sim.old_labels(log)
    assert any(pair in old for pair in pairs)


# --- through the importer, the service and the report --------------------------------------


def _campaign_with(log) -> None:
    campaign = campaign_create(name="Simulated", slug="sim")
    queries = sorted(set(log.query.tolist()))
    add_queries(campaign, *(f"q{q}" for q in queries))
    Document.objects.bulk_create(
        Document(campaign=campaign, external_id=f"d{q}-{d}")
        for q, d in sorted(set(zip(log.query.tolist(), log.document.tolist(), strict=True)))
    )
    return campaign


def _stored(name: str) -> dict[tuple[str, str], float]:
    rows = SourceLabel.objects.filter(source__name=name).values_list(
        "query__external_id", "document__external_id", "grade"
    )
    return {(q, d): g for q, d, g in rows}


@pytest.mark.django_db
def test_the_service_keeps_a_scaled_querys_labels(tmp_path):
    base = {"queries": 12, "seed": 5, "sessions": 2_000, "sessions_of": {0: 20_000},
            "propensity_of": {0: 1.0}}  # fmt: skip
    before = sim.simulate(sim.Spec(**base))
    campaign = _campaign_with(before)
    for tag, spec in (("before", sim.Spec(**base)), ("after", sim.Spec(**base, scale={0: 2.0}))):
        text = sim.csv_text(sim.simulate(spec))
        import_log(campaign=campaign, file=write(tmp_path, f"{tag}.csv", text), name=tag)
        derive_clicks(log=BehaviourLog.objects.get(name=tag), name=tag)
    first = {k: g for k, g in _stored("clicks:before").items() if k[0] == "q0"}
    second = {k: g for k, g in _stored("clicks:after").items() if k[0] == "q0"}
    assert len(first) == 10 and first == second
    # The grades are the campaign's scale (Good 3, Fair 2, Bad 1), as the raters'.
    assert set(_stored("clicks:before").values()) == {1.0, 2.0, 3.0}


@pytest.mark.django_db
def test_too_little_data_is_no_label_not_exported_and_counted_in_the_report(tmp_path):
    log = sim.simulate(sim.Spec(queries=15, seed=2, sessions=60))
    campaign = _campaign_with(log)
    import_log(campaign=campaign, file=write(tmp_path, "w.csv", sim.csv_text(log)), name="w")
    summary = derive_clicks(log=BehaviourLog.objects.get(name="w"), name="w")
    source = LabelSource.objects.get(name="clicks:w")
    p = source.params
    assert p["model"] == "pbm" and p["pairs"] == 150
    assert p["too_little_data"] > 0 and p["labels"] + p["too_little_data"] == p["pairs"]
    assert summary.created == p["labels"] == source.labels.count()
    assert any("too little data" in w for w in summary.warnings)
    # Which pairs they were: every pair of the log without a label, by external id, nearest
    # the floor first, each below the floor (its own evidence or its query's clicks).
    listed = p["too_little_data_pairs"]
    labelled = set(_stored("clicks:w"))
    every = {(f"q{q}", f"d{q}-{d}") for q, d in log.truth}
    assert {(x["query"], x["document"]) for x in listed} == every - labelled
    evidence = [x["expected_clicks"] for x in listed]
    assert evidence == sorted(evidence, reverse=True)
    floor = p["min_expected_clicks"]
    assert all(x["expected_clicks"] < floor or x["query_clicks"] < floor for x in listed)

    out = tmp_path / "w.qrels"
    call_command("export_qrels", campaign="sim", source="clicks:w", real=True, output=str(out))
    assert len(out.read_text().splitlines()) == p["labels"]

    report = sources_report(campaign=campaign)
    shown = next(s for s in report.sources if s.key == "clicks:w")
    assert shown.pairs == p["labels"]
    text = describe(shown)
    assert f"{p['too_little_data']:,} of 150 pairs" in text and "too little data" in text


@pytest.mark.django_db
def test_the_floor_and_the_model_are_parameters(tmp_path):
    log = sim.simulate(sim.Spec(queries=10, seed=3, sessions=60))
    campaign = _campaign_with(log)
    import_log(campaign=campaign, file=write(tmp_path, "w.csv", sim.csv_text(log)), name="w")
    w = BehaviourLog.objects.get(name="w")
    derive_clicks(log=w, name="all", min_expected_clicks=0)
    derive_clicks(log=w, name="strict", min_expected_clicks=50)
    derive_clicks(log=w, name="old", model="ctr")
    assert LabelSource.objects.get(name="clicks:all").params["too_little_data"] == 0
    assert len(_stored("clicks:all")) == 100
    assert len(_stored("clicks:strict")) < len(_stored("clicks:all"))
    assert LabelSource.objects.get(name="clicks:old").params["model"] == "ctr"
    with pytest.raises(ValueError, match="expected clicks"):
        derive_clicks(log=w, name="x", min_impressions=20)
    with pytest.raises(ValueError, match="unknown click model"):
        derive_clicks(log=w, name="x", model="ubm")
    assert not LabelSource.objects.filter(name="clicks:x").exists()
    assert campaign.label_sources.count() == 3


@pytest.mark.django_db
def test_a_log_with_nothing_of_the_campaign_derives_no_labels(tmp_path):
    campaign = campaign_create(name="Empty", slug="empty")
    add_queries(campaign, "q1")
    text = "qid,docno,position,impressions,clicks\nzz,x,1,100,40\nzz,y,2,100,20\n"
    import_log(campaign=campaign, file=write(tmp_path, "w.csv", text), name="w")
    summary = derive_clicks(log=BehaviourLog.objects.get(name="w"), name="w")
    params = LabelSource.objects.get(name="clicks:w").params
    assert summary.created == 0 and params["pairs"] == 0 and params["too_little_data"] == 0
    assert params["em"] == {"iterations": 0, "converged": True, "log_likelihood": 0.0}


def test_an_average_document_low_on_the_page_at_the_floor_is_mostly_fair():
    # The audit's case: a document as attractive as its query's average (the simulator's probe,
    # true grade Fair) always shown at position 9, in 600 queries, with as many impressions as
    # put its evidence at the default floor. Reference: C ~ Poisson(E') at θ = 1, so by hand
    # (scipy.stats.poisson) it is Fair when (C + k) / (E' + k) is in [0.75, 1.5).
    floor = sim.DEFAULT_MIN_EXPECTED_CLICKS
    average = float(np.dot((0.4, 0.35, 0.25), (0.06, 0.18, 0.40)))  # the spec's mean α
    impressions = int(np.ceil(floor / (sim.EXAMINATION[8] * average)))
    log = sim.simulate(sim.Spec(queries=600, seed=7, probe_impressions=impressions))
    s = sim.click_model_scores(
        query=log.query, document=log.document, position=log.position,
        impressions=log.impressions, clicks=log.clicks,
    )  # fmt: skip
    probe = (s.document_id == 10) & s.enough
    assert probe.sum() >= 500 and np.all(s.evidence[probe] >= floor)
    grade = sim.ratio_grades(s.ratio[probe], sim.default_thresholds(3), sim.GRADES)
    e, k = float(np.median(s.evidence[probe])), s.prior_strength
    fair_from = np.ceil(0.75 * (e + k) - k)  # the fewest clicks that are Fair, and the most
    fair_to = np.ceil(1.5 * (e + k) - k) - 1
    by_hand = poisson.cdf(fair_to, e) - poisson.cdf(fair_from - 1, e)
    assert np.mean(grade == 2) == pytest.approx(by_hand, abs=0.06)
    assert np.mean(grade == 2) >= 0.7 and np.mean(grade == 1) <= 0.25


@pytest.mark.django_db
def test_the_command_takes_the_floor_on_expected_clicks(tmp_path, capsys):
    log = sim.simulate(sim.Spec(queries=10, seed=3, sessions=60))
    campaign = _campaign_with(log)
    import_log(campaign=campaign, file=write(tmp_path, "w.csv", sim.csv_text(log)), name="w")
    for name, floor in (("loose", "0"), ("strict", "40")):
        call_command("derive_labels", "clicks", "--campaign", "sim", "--log", "w",
                     "--name", name, "--min-expected-clicks", floor)  # fmt: skip
    loose = LabelSource.objects.get(name="clicks:loose").params
    strict = LabelSource.objects.get(name="clicks:strict").params
    assert loose["min_expected_clicks"] == 0 and strict["min_expected_clicks"] == 40
    # Floor 0: every pair of these queries (all of them have clicks) gets a label.
    assert loose["labels"] == 100 and loose["too_little_data"] == 0
    assert 0 < strict["labels"] < 100 and strict["labels"] + strict["too_little_data"] == 100
    assert "fewer than 40 expected clicks" in capsys.readouterr().out
    with pytest.raises(CommandError, match="0 or more"):
        call_command("derive_labels", "clicks", "--campaign", "sim", "--log", "w",
                     "--name", "x", "--min-expected-clicks", "-1")  # fmt: skip
    assert not LabelSource.objects.filter(name="clicks:x").exists()
