"""Properties that must hold for any input (hypothesis)."""

from __future__ import annotations

import io
import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.core import dcg, evaluate, ndcg, read_qrels, read_run

grades_st = st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=25)
options_st = st.fixed_dictionaries(
    {
        "gain": st.sampled_from(["linear", "exponential"]),
        "discount": st.sampled_from(["log2", "jarvelin"]),
        "ideal": st.sampled_from(["judged", "retrieved"]),
    }
)
FAST = settings(max_examples=60, deadline=None)


def ranking(grades, extra=()):
    run = {"q": {f"d{i:03d}": float(len(grades) - i) for i in range(len(grades))}}
    qrels = {"q": {f"d{i:03d}": g for i, g in enumerate(grades)}}
    qrels["q"].update({f"x{j}": g for j, g in enumerate(extra)})
    return qrels, run


@FAST
@given(grades_st, st.lists(st.integers(0, 4), max_size=5), st.integers(1, 30), options_st)
def test_ndcg_is_between_0_and_1(grades, extra, k, options):
    qrels, run = ranking(grades, extra)
    for value in (ndcg(qrels, run, k, **options), ndcg(qrels, run, None, **options)):
        assert 0.0 <= value <= 1.0 + 1e-12


@FAST
@given(grades_st, st.integers(1, 30), options_st)
def test_the_ideal_ordering_scores_1(grades, k, options):
    qrels, run = ranking(sorted(grades, reverse=True))
    expected = 1.0 if any(grades) else 0.0
    assert abs(ndcg(qrels, run, k, **options) - expected) < 1e-12
    assert abs(ndcg(qrels, run, None, **options) - expected) < 1e-12


@FAST
@given(grades_st, st.data(), st.integers(1, 30), options_st)
def test_moving_a_better_document_up_never_lowers_dcg(grades, data, k, options):
    i = data.draw(st.integers(0, len(grades) - 1))
    j = data.draw(st.integers(0, len(grades) - 1))
    i, j = min(i, j), max(i, j)
    if grades[j] <= grades[i]:
        grades[i], grades[j] = grades[j], grades[i]
    # Now grades[j] >= grades[i] with j below i: swapping them moves the better one up.
    before_q, before_r = ranking(grades)
    swapped = list(grades)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    after_q, after_r = ranking(swapped)
    opts = {key: v for key, v in options.items() if key != "ideal"}
    assert dcg(after_q, after_r, k, **opts) >= dcg(before_q, before_r, k, **opts) - 1e-12


@FAST
@given(
    st.lists(st.integers(0, 1), min_size=1, max_size=25),
    st.integers(1, 30),
    st.sampled_from(["log2", "jarvelin"]),
)
def test_linear_and_exponential_gain_agree_on_binary_grades(grades, k, discount):
    qrels, run = ranking(grades, extra=[1, 0])
    lin = ndcg(qrels, run, k, gain="linear", discount=discount)
    exp = ndcg(qrels, run, k, gain="exponential", discount=discount)
    assert lin == exp


collection_st = st.lists(
    st.tuples(
        st.sampled_from(["q1", "q2", "q3"]),
        st.sampled_from([f"d{i}" for i in range(12)]),
        st.integers(-1, 3),
        st.integers(0, 6).map(lambda s: s / 2),
    ),
    min_size=1,
    max_size=40,
    unique_by=lambda t: (t[0], t[1]),
)


@FAST
@given(collection_st, st.randoms(use_true_random=False))
def test_the_order_of_lines_in_trec_files_does_not_matter(rows, rnd):
    measures = [
        "map",
        "P.1,5",
        "recall.5",
        "ndcg",
        "ndcg_cut.3",
        "recip_rank",
        "bpref",
        "Rprec",
        "err_cut.5",
    ]

    def result(lines):
        qrels = read_qrels(io.StringIO("".join(f"{q} 0 {d} {g}\n" for q, d, g, _ in lines)))
        run = read_run(io.StringIO("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, _, s in lines)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return evaluate(qrels, run, measures)

    first = result(rows)
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    second = result(shuffled)
    assert first.qids == second.qids
    for name in first.names:
        assert np.array_equal(first.per_query[name], second.per_query[name]), name
