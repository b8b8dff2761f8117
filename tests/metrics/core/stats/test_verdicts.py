"""GSB from individual verdicts: sides, identical lists, strengths and agreement."""

import krippendorff
import numpy as np
import pytest

from metrics.core.stats import Decision, gsb_from_counts, gsb_from_verdicts


def test_seed_002_from_four_verdicts():
    res = gsb_from_verdicts(["q1", "q2", "q3", "q4"], ["G", "S", "B", "B"])
    assert (res.good, res.same, res.bad) == (1, 1, 2)
    assert res.gsb == -0.25
    assert res.decision is Decision.DO_NOT_LAUNCH and not res.conclusive
    assert (round(res.ci_low, 4), round(res.ci_high, 4)) == (-0.7783, 0.5047)


def test_verdict_codings_are_equivalent():
    words = gsb_from_verdicts([1, 2, 3], ["good", "Same", "BAD"])
    numbers = gsb_from_verdicts([1, 2, 3], [1, 0, -1])
    floats = gsb_from_verdicts([1, 2, 3], [1.0, 0.0, -1.0])
    assert words.gsb == numbers.gsb == floats.gsb == 0.0


def test_it_matches_the_counts_entry_point_with_one_verdict_per_query():
    v = ["G"] * 70 + ["S"] * 100 + ["B"] * 30
    res, ref = gsb_from_verdicts(np.arange(200), v), gsb_from_counts(70, 100, 30)
    assert (res.ci_low, res.ci_high, res.sign_p, res.decision) == (
        ref.ci_low,
        ref.ci_high,
        ref.sign_p,
        ref.decision,
    )


def test_it_rejects_unknown_verdicts_and_mismatched_lengths():
    with pytest.raises(ValueError, match="unknown verdict 'X'"):
        gsb_from_verdicts(["q1"], ["X"])
    with pytest.raises(ValueError, match="same length"):
        gsb_from_verdicts(["q1", "q2"], ["G"])


def test_a_rater_who_always_presses_left_gives_good_on_the_left_and_bad_on_the_right():
    cand = ["left", "right", "left", "right"]
    # Pressing "Left better" means Good when the candidate was left, Bad when right.
    res = gsb_from_verdicts(
        ["q1", "q2", "q3", "q4"],
        ["G", "B", "G", "B"],
        candidate_sides=cand,
        chosen_sides=["left"] * 4,
    )
    assert res.position_bias.left == 4 and res.position_bias.right == 0
    # The same rater recorded the other way round is inconsistent.
    with pytest.raises(ValueError, match="row 1: chosen_side disagrees"):
        gsb_from_verdicts(["q1"], ["B"], candidate_sides=["left"], chosen_sides=["left"])


def test_position_bias_from_candidate_sides_70_left_40_right():
    # 70 preferences for the left side, 40 for the right, 20 Same; candidate shown left in half.
    n_left, n_right, n_same = 70, 40, 20
    verdicts = ["G"] * 35 + ["B"] * 35 + ["G"] * 20 + ["B"] * 20 + ["S"] * n_same
    cand = ["left"] * 35 + ["right"] * 35 + ["right"] * 20 + ["left"] * 20 + ["left"] * 10
    cand += ["right"] * 10
    res = gsb_from_verdicts(np.arange(130), verdicts, candidate_sides=cand)
    pb = res.position_bias
    assert (pb.left, pb.right) == (n_left, n_right)
    assert round(pb.p_value, 4) == 0.0054 and pb.warn
    assert any("position bias" in w for w in res.warnings)
    assert res.shuffle.candidate_left == 65 and not res.shuffle.error


def test_a_broken_shuffle_is_an_error():
    res = gsb_from_verdicts(np.arange(100), ["S"] * 100, candidate_sides=["left"] * 100)
    assert res.shuffle.error
    assert any("not shuffled" in e for e in res.errors)


def test_identical_lists_count_as_same_but_not_in_the_side_tests():
    q = ["q1", "q1", "q2", "q2", "q3", "q3"]
    v = ["G", "G", "B", "S", "S", "S"]
    ident = [False, False, False, False, True, True]
    cand = ["left", "right", "left", "right", "", ""]
    res = gsb_from_verdicts(q, v, identical=ident, candidate_sides=cand, raters=list("ababab"))
    assert (res.good, res.same, res.bad, res.n_queries) == (2, 3, 1, 3)
    assert (res.identical_queries, res.identical_verdicts) == (1, 2)
    assert res.shuffle.tasks == 4
    assert res.position_bias.left + res.position_bias.right == 3
    with pytest.raises(ValueError, match="identical-list task must be Same"):
        gsb_from_verdicts(["q1"], ["G"], identical=[True])


def test_the_seven_point_strength_distribution():
    res = gsb_from_verdicts(
        np.arange(6),
        ["G", "G", "B", "S", "B", "G"],
        strengths=["much", 1, "clearly", "", 3, None],
    )
    assert res.strength_distribution == {-3: 1, -2: 1, -1: 0, 0: 1, 1: 1, 2: 0, 3: 1}
    assert res.strength_missing == 1
    with pytest.raises(ValueError, match="Same verdict cannot have a strength"):
        gsb_from_verdicts([1], ["S"], strengths=[2])
    with pytest.raises(ValueError, match="strength"):
        gsb_from_verdicts([1], ["G"], strengths=["enormous"])


def test_agreement_between_raters_matches_the_package():
    q = ["q1", "q1", "q1", "q2", "q2", "q3", "q3", "q3"]
    r = ["a", "b", "c", "a", "b", "a", "b", "c"]
    v = ["G", "G", "S", "B", "B", "S", "G", "S"]
    res = gsb_from_verdicts(q, v, raters=r)
    # Raters × items, coded Bad −1, Same 0, Good +1.
    matrix = [[1, -1, 0], [1, -1, 1], [0, np.nan, 0]]
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal")
    assert res.alpha == pytest.approx(expected)
    # Pairs: q1 1 of 3 agree, q2 1 of 1, q3 1 of 3 → 3/7.
    assert res.raw_agreement == pytest.approx(3 / 7)


def test_agreement_uses_the_seven_point_scale_when_every_strength_is_given():
    q, r = ["q1", "q1", "q2", "q2"], ["a", "b", "a", "b"]
    v = ["G", "G", "B", "S"]
    res = gsb_from_verdicts(q, v, raters=r, strengths=[3, 1, 2, ""])
    expected = krippendorff.alpha(
        reliability_data=[[3, -2], [1, 0]], level_of_measurement="ordinal"
    )
    assert res.alpha == pytest.approx(expected)
    assert res.raw_agreement == 0.0


def test_a_rater_judging_a_query_twice_is_rejected():
    with pytest.raises(ValueError, match="more than once"):
        gsb_from_verdicts(["q1", "q1"], ["G", "B"], raters=["a", "a"])
