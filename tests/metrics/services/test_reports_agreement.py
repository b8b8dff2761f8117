"""Rater agreement on graded judgments (STATISTICS.md section 5) against hand computation, a
textbook implementation of Krippendorff's ordinal alpha written out here, and the `krippendorff`
package; and the disagreement list."""

from __future__ import annotations

from fractions import Fraction

import krippendorff
import numpy as np
import pytest

from metrics.selectors.disagreements import disagreements
from metrics.services.agreement import agreement_compute
from tests.annotate.judgment_data import grade, pool_item
from tests.metrics.report_helpers import make_raters

NAMES = {3: "Good", 2: "Fair", 1: "Bad", None: None}
# Raters A, B, C (Good 3, Fair 2, Bad 1); "-" = no grade; None = can't judge.
TABLE = {
    "i1": (3, 3, 3),
    "i2": (3, 2, 3),
    "i3": (1, 1, "-"),
    "i4": (2, 3, 1),
    "i5": (3, "-", "-"),  # one grade: drops out
    "i6": ("-", None, 2),  # can't judge is no grade: one grade, drops out
}


def judge(campaign, raters, table):
    for doc, grades in table.items():
        item = pool_item(campaign, "q1", doc)
        for rater, g in zip(raters, grades, strict=True):
            if g != "-":
                grade(item, rater, NAMES[g])


@pytest.fixture
def three(personas):
    raters = make_raters(personas.campaign, 3, prefix="r")  # r1, r2, r3 = A, B, C
    judge(personas.campaign, raters, TABLE)
    return personas.campaign


def ordinal_alpha(units: list[list[float]], domain: list[float]) -> float:
    """Krippendorff's alpha, ordinal metric, from the coincidence matrix (Krippendorff 2011,
    "Computing Krippendorff's alpha-reliability", section C)."""
    index = {v: i for i, v in enumerate(domain)}
    o = [[Fraction(0)] * len(domain) for _ in domain]
    for values in units:
        m = len(values)
        if m < 2:
            continue
        for a in range(m):
            for b in range(m):
                if a != b:
                    o[index[values[a]]][index[values[b]]] += Fraction(1, m - 1)
    n_c = [sum(row) for row in o]
    n = sum(n_c)

    def delta(c: int, k: int) -> Fraction:
        lo, hi = min(c, k), max(c, k)
        return (sum(n_c[lo : hi + 1]) - (n_c[c] + n_c[k]) / 2) ** 2

    size = range(len(domain))
    observed = sum(o[c][k] * delta(c, k) for c in size for k in size)
    expected = sum(n_c[c] * n_c[k] * delta(c, k) for c in size for k in size)
    return float(1 - (n - 1) * observed / expected)


def test_the_figures_match_hand_computation(three):
    s = agreement_compute(campaign=three)
    assert (s["graded_items"], s["n_items"], s["n_ratings"]) == (6, 4, 11)
    # Agreeing pairs: i1 6, i2 2, i3 2, i4 0 = 10 of 6 + 6 + 2 + 6 = 20.
    assert s["raw_agreement"] == pytest.approx(0.5)
    assert s["fleiss"] is None and s["fleiss_reason"] == "items have different numbers of raters"
    by_name = {r["username"]: r for r in s["raters"]}
    # Majority of the others: A matches on i1 and i3 (i2, i4: the others tie), B on i1, i3
    # (misses i2), C on i1 (i2 and i4 tie).
    assert [
        (by_name[n]["majority_rate"], by_name[n]["majority_items"]) for n in ("r1", "r2", "r3")
    ] == [(1.0, 2), (pytest.approx(2 / 3), 3), (1.0, 1)]
    # Own grade minus the others' mean: A (0 + .5 + 0 + 0)/4, B (0 − 1 + 0 + 1.5)/4,
    # C (0 + .5 − 1.5)/3.
    assert by_name["r1"]["mean_deviation"] == pytest.approx(0.125)
    assert by_name["r2"]["mean_deviation"] == pytest.approx(0.125)
    assert by_name["r3"]["mean_deviation"] == pytest.approx(-1 / 3)
    assert [by_name[n]["leaning"] for n in ("r1", "r2", "r3")] == ["lenient", "lenient", "severe"]
    # Linear weighted kappa: A-B 1 − 2/3.5, A-C 1 − 1/(7/3), B-C 1 − 3/(7/3).
    names = [r["username"] for r in s["raters"]]
    kappas = {(names[p["a"]], names[p["b"]]): (p["shared"], p["kappa"]) for p in s["pairs"]}
    assert kappas[("r1", "r2")] == (4, pytest.approx(3 / 7))
    assert kappas[("r1", "r3")] == (3, pytest.approx(4 / 7))
    assert kappas[("r2", "r3")] == (3, pytest.approx(-2 / 7))


def test_alpha_matches_the_textbook_formula_and_the_krippendorff_package(three):
    s = agreement_compute(campaign=three)
    units = [[3, 3, 3], [3, 2, 3], [1, 1], [2, 3, 1]]
    by_hand = ordinal_alpha(units, [1.0, 2.0, 3.0])
    data = np.array(
        [[3, 3, 1, 2, 3, np.nan], [3, 2, 1, 3, np.nan, np.nan], [3, 3, np.nan, 1, np.nan, 2]]
    )
    package = krippendorff.alpha(
        reliability_data=data, level_of_measurement="ordinal", value_domain=[1, 2, 3]
    )
    assert s["alpha"] == pytest.approx(by_hand, abs=1e-12)
    assert s["alpha"] == pytest.approx(package, abs=1e-12)


def test_fleiss_kappa_when_every_item_has_the_same_number_of_raters(personas):
    c = personas.campaign
    raters = make_raters(c, 2)
    judge(c, raters, {"a": (3, 3), "b": (3, 2), "c": (1, 1), "d": (2, 2)})
    s = agreement_compute(campaign=c)
    # P̄ = 3/4; p = (2, 3, 3)/8, P_e = 11/32; κ = (3/4 − 11/32) / (1 − 11/32) = 13/21.
    assert s["fleiss"] == pytest.approx(13 / 21)
    assert s["fleiss_reason"] is None


def test_no_shared_items_gives_no_figures(personas):
    c = personas.campaign
    raters = make_raters(c, 2)
    judge(c, raters, {"a": (3, "-"), "b": ("-", 1)})
    s = agreement_compute(campaign=c)
    assert (s["n_items"], s["alpha"], s["raw_agreement"], s["pairs"]) == (0, None, None, [])


def test_disagreements_come_widest_first(three):
    found = disagreements(campaign=three, rule="mean")
    # i4 (Fair, Good, Bad) and ... ranges: i4 2, i2 1; i1, i3 agree.
    assert [d.document_external_id for d in found.rows] == ["i4", "i2"]
    assert (found.total, found.open) == (2, 2)
    first = found.rows[0]
    assert (first.low, first.high, first.range, first.n) == (1.0, 3.0, 2.0, 3)
    assert first.aggregate == pytest.approx(2.0)
    assert [(g.rater, g.label) for g in first.grades] == [
        ("r1", "Fair"),
        ("r2", "Good"),
        ("r3", "Bad"),
    ]


def test_the_adjudication_page_shows_the_intent_the_snippet_and_the_comments(personas):
    from annotate.models import Document, Grade, Label, PoolItem, Query
    from tests.metrics.report_helpers import make_raters

    campaign = personas.campaign
    query = Query.objects.create(campaign=campaign, external_id="qa", text="running shoes",
                                 description="The user wants shoes for road running.")  # fmt: skip
    doc = Document.objects.create(campaign=campaign, external_id="da", title="Trail boots",
                                  snippet="Heavy boots for mountain trails.")  # fmt: skip
    item = PoolItem.objects.create(campaign=campaign, query=query, document=doc)
    r1, r2, r3 = make_raters(campaign, 3, prefix="adj")
    labels = {label.name: label for label in Label.objects.filter(campaign=campaign)}
    Grade.objects.create(pool_item=item, rater=r1, label=labels["Good"], comment="shoes, close")
    Grade.objects.create(pool_item=item, rater=r2, label=labels["Bad"], comment="boots ≠ shoes")
    Grade.objects.create(pool_item=item, rater=r3, cant_judge=True, comment="page in German")
    url = f"/reports/{campaign.slug}/disagreements/"
    html = personas.client_for("manager").get(url).content.decode()
    assert "The user wants shoes for road running." in html
    assert "Heavy boots for mountain trails." in html
    for comment in ("shoes, close", "boots ≠ shoes", "page in German"):
        assert comment.replace("≠", "≠") in html
    assert personas.client_for("rater").get(url).status_code == 404
