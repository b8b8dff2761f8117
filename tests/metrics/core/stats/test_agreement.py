"""Agreement statistics against hand computation, published examples and `krippendorff`."""

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.core.stats import (
    agreement_summary,
    cohen_kappa,
    fleiss_kappa,
    fleiss_table,
    krippendorff_alpha,
    pairwise_agreement,
    rater_figures,
    reliability_matrix,
)

nan = np.nan

# Krippendorff's example (3 coders, 15 units), published α: nominal 0.691, interval 0.811.
KRIPP_EXAMPLE = [
    [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
    [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
    [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
]

# Two raters, items (1,1), (1,2), (2,2), (3,3), and a fifth item rated once (must drop out).
SMALL = [[1, 1, 2, 3, 3], [1, 2, 2, 3, nan]]


def test_krippendorffs_published_example():
    assert round(krippendorff_alpha(KRIPP_EXAMPLE, level="nominal"), 3) == 0.691
    assert round(krippendorff_alpha(KRIPP_EXAMPLE, level="interval"), 3) == 0.811


def test_ordinal_alpha_by_hand():
    # Coincidences over the four pairable items: o11 = 2, o12 = o21 = 1, o22 = 2, o33 = 2;
    # n_1 = 3, n_2 = 3, n_3 = 2, n = 8. Ordinal δ²(c,k) = (Σ_{g=c..k} n_g − (n_c + n_k)/2)²:
    # δ²12 = (6 − 3)² = 9, δ²13 = (8 − 2.5)² = 30.25, δ²23 = (5 − 2.5)² = 6.25.
    # Σ o δ² = 2·9 = 18; Σ n_c n_k δ² = 2(9·9 + 6·30.25 + 6·6.25) = 600.
    # α = 1 − (n − 1)·18/600 = 1 − 126/600 = 0.79.
    assert krippendorff_alpha(SMALL, level="ordinal") == pytest.approx(0.79)
    # Interval δ² = (c − k)²: Σ o δ² = 2, Σ n n δ² = 2(9 + 24 + 6) = 78, α = 1 − 14/78.
    assert krippendorff_alpha(SMALL, level="interval") == pytest.approx(1 - 14 / 78)
    # Nominal δ = [c ≠ k]: Σ n n δ = 2(9 + 6 + 6) = 42, α = 1 − 14/42 = 2/3.
    assert krippendorff_alpha(SMALL, level="nominal") == pytest.approx(2 / 3)


def test_alpha_is_undefined_without_variation_or_pairs():
    assert np.isnan(krippendorff_alpha([[1, 1, 1], [1, 1, nan]]))
    assert np.isnan(krippendorff_alpha([[1, nan], [nan, 2]]))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(2, 15), st.integers(0, 2**32 - 1))
def test_alpha_agrees_with_the_krippendorff_package(n_raters, n_items, seed):
    rng = np.random.default_rng(seed)
    m = rng.integers(-1, 2, size=(n_raters, n_items)).astype(float)
    m[rng.random(m.shape) < 0.3] = nan
    pairable = (~np.isnan(m)).sum(axis=0) >= 2
    if pairable.sum() == 0 or np.unique(m[:, pairable][~np.isnan(m[:, pairable])]).size < 2:
        return
    for level in ("ordinal", "interval", "nominal"):
        expected = krippendorff.alpha(reliability_data=m, level_of_measurement=level)
        assert krippendorff_alpha(m, level=level) == pytest.approx(expected, abs=1e-12)


def test_raw_pairwise_agreement_by_hand():
    # SMALL: 3 of the 4 pairable items agree, the single-rated item drops out.
    assert pairwise_agreement(SMALL) == 0.75
    # Three raters: (1, 1, 2) has 1 agreeing pair of 3, (2, 2, 2) 3 of 3: 4/6.
    assert pairwise_agreement([[1, 2], [1, 2], [2, 2]]) == pytest.approx(4 / 6)
    assert np.isnan(pairwise_agreement([[1, nan], [nan, 2]]))


def test_same_heavy_data_gives_low_alpha_but_high_raw_agreement():
    rows = np.zeros((2, 40))
    rows[0, 0], rows[1, 1] = 1, -1
    assert pairwise_agreement(rows) == pytest.approx(38 / 40)
    assert krippendorff_alpha(rows) < 0.1


# Wikipedia's worked example of Fleiss' kappa: 10 items, 14 raters, 5 categories;
# P̄ = 0.378, P_e = 0.213, κ = 0.210.
FLEISS_EXAMPLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_of_the_wikipedia_example():
    assert round(fleiss_kappa(FLEISS_EXAMPLE), 3) == 0.210


def test_fleiss_kappa_refuses_unequal_raters():
    with pytest.raises(ValueError, match="same number of raters"):
        fleiss_kappa([[1, 1], [2, 1]])


def test_fleiss_table_from_a_matrix():
    table, values = fleiss_table([[1, 2], [1, 3], [2, 3]])
    assert values.tolist() == [1, 2, 3]
    assert table.tolist() == [[2, 1, 0], [0, 1, 2]]
    # Hand: P_1 = P_2 = (4 + 1 − 3)/6 = 1/3; p = (2, 2, 2)/6, P_e = 1/3; κ = 0.
    assert fleiss_kappa(table) == pytest.approx(0.0)


# x = 0 0 1 1 2 2, y = 0 1 1 2 2 2. O = [[1,1,0],[0,1,1],[0,0,2]], rows (2,2,2), cols (1,2,3);
# E rows = (1/3, 2/3, 1). Unweighted: 1 − 2/4 = 0.5. Linear |i−j|: Σ wO = 2,
# Σ wE = 8/3 + 4/3 + 4/3 = 16/3, κ = 0.625. Quadratic (i−j)²: Σ wE = 14/3 + 4/3 + 2 = 8, κ = 0.75.
X = [0, 0, 1, 1, 2, 2]
Y = [0, 1, 1, 2, 2, 2]


@pytest.mark.parametrize(
    ("weights", "kappa"), [(None, 0.5), ("linear", 0.625), ("quadratic", 0.75)]
)
def test_cohen_kappa_by_hand(weights, kappa):
    assert cohen_kappa(X, Y, weights=weights) == pytest.approx(kappa)
    assert cohen_kappa(Y, X, weights=weights) == pytest.approx(kappa)


def test_cohen_kappa_labels_keep_unused_categories_in_the_distance():
    # With label 3 unused, linear weights are unchanged by position (0, 1, 2 stay 0, 1, 2) but
    # the expected matrix gains an empty row/column: κ is the same.
    assert cohen_kappa(X, Y, weights="linear", labels=[0, 1, 2, 3]) == pytest.approx(0.625)
    with pytest.raises(ValueError, match="not among the labels"):
        cohen_kappa(X, Y, labels=[0, 1])


def test_cohen_kappa_drops_missing_pairs_and_rejects_bad_input():
    assert cohen_kappa([*X, nan], [*Y, 1], weights="linear") == pytest.approx(0.625)
    with pytest.raises(ValueError):
        cohen_kappa([1, 2], [1])
    with pytest.raises(ValueError):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    assert np.isnan(cohen_kappa([1, 1], [1, 1]))


def test_reliability_matrix_from_long_format():
    m, items, raters = reliability_matrix(
        ["q2", "q1", "q1", "q3"], ["bob", "amy", "bob", "amy"], [3, 1, 2, 4]
    )
    assert items.tolist() == ["q1", "q2", "q3"]
    assert raters.tolist() == ["amy", "bob"]
    np.testing.assert_array_equal(m, [[1, nan, 4], [2, 3, nan]])


def test_reliability_matrix_rejects_a_double_rating():
    with pytest.raises(ValueError, match="'amy' rated item 'q1' more than once"):
        reliability_matrix(["q1", "q1"], ["amy", "amy"], [1, 2])


def test_rater_figures_by_hand():
    # item1: r0 = 1, r1 = 1, r2 = 2; item2: r0 = 2, r1 = 2; item3: r3 = 1 alone.
    m = [[1, 2, nan], [1, 2, nan], [2, nan, nan], [nan, nan, 1]]
    f = rater_figures(m)
    # r0: item1 others (1, 2) tie → skipped; item2 others (2) → match. Rate 1/1.
    # r2: item1 others (1, 1) → majority 1 ≠ 2. Rate 0/1.
    np.testing.assert_array_equal(f.majority_items, [1, 1, 1, 0])
    np.testing.assert_allclose(f.majority_rate, [1.0, 1.0, 0.0, nan])
    # Deviation from the others' mean: r0: (1 − 1.5, 2 − 2) → −0.25; r2: 2 − 1 = 1.
    np.testing.assert_allclose(f.mean_deviation, [-0.25, -0.25, 1.0, nan])
    np.testing.assert_array_equal(f.deviation_items, [2, 2, 1, 0])


def test_the_summary_gives_fleiss_only_with_equal_raters_per_item():
    s = agreement_summary([[1, 2], [1, 3], [2, 3]])
    assert s.fleiss_kappa == pytest.approx(0.0) and s.fleiss_reason is None
    assert s.cohen_kappa is None  # three raters
    s = agreement_summary([[1, 2, 3], [1, 3, nan], [2, nan, nan]])
    assert s.fleiss_kappa is None and s.fleiss_reason == "items have different numbers of raters"
    assert (s.n_items, s.n_ratings) == (2, 6)


def test_the_summary_gives_cohen_for_two_raters():
    s = agreement_summary([X, Y])
    assert s.cohen_kappa == pytest.approx(0.625)
    assert s.alpha == pytest.approx(
        krippendorff.alpha(reliability_data=[X, Y], level_of_measurement="ordinal")
    )
