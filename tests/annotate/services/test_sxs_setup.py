"""Setting up a comparison: which queries, which tasks, which are identical, and what is refused."""

from __future__ import annotations

import pytest

from annotate.models import Comparison, Run, SxsTask, System
from annotate.selectors_sxs import task_lists
from annotate.services.sxs_setup import ComparisonRefused, comparison_create, sample_queries
from tests.annotate.sxs_helpers import build_runs, distinct_lists, make_comparison


def tasks_of(comparison) -> list[tuple[str, int | None, bool]]:
    return list(
        comparison.tasks.order_by("query__external_id", "position").values_list(
            "query__external_id", "position", "identical"
        )
    )


def test_a_list_comparison_has_one_task_per_query_of_the_campaign(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(5))
    assert tasks_of(comparison) == [(f"q{i}", None, False) for i in range(5)]
    assert comparison.depth == 10 and comparison.raters_per_task == 1


def test_identical_lists_are_marked_identical_whatever_lies_below_the_depth(personas):
    lists = {
        "same": (["d1", "d2", "d3"], ["d1", "d2", "d3"]),
        "reordered": (["d1", "d2", "d3"], ["d2", "d1", "d3"]),
        "deeper": (["d1", "d2", "x9"], ["d1", "d2", "y9"]),  # differ only at rank 3
        "shorter": (["d1", "d2"], ["d1", "d2", "d3"]),
        "none": ([], []),
    }
    comparison = make_comparison(personas.campaign, lists, depth=2)
    assert tasks_of(comparison) == [
        ("deeper", None, True),
        ("none", None, True),  # both systems return nothing: nothing to choose between
        ("reordered", None, False),
        ("same", None, True),
        ("shorter", None, True),
    ]


def test_per_position_has_a_task_per_rank_where_either_side_has_a_document(personas):
    lists = {
        "q1": (["d1", "d2", "d3"], ["d1", "x2", "d3", "x4"]),
        "q2": (["e1"], []),
        "q3": ([], []),
    }
    comparison = make_comparison(personas.campaign, lists, unit="position", depth=10)
    assert tasks_of(comparison) == [
        ("q1", 1, True),  # the same document at rank 1
        ("q1", 2, False),
        ("q1", 3, True),
        ("q1", 4, False),  # only the candidate has a document at rank 4
        ("q2", 1, False),
    ]
    # Cut at the depth.
    other = comparison_create(
        campaign=personas.campaign,
        name="two",
        baseline=comparison.baseline,
        candidate=comparison.candidate,
        unit="position",
        depth=2,
    )
    assert tasks_of(other) == [("q1", 1, True), ("q1", 2, False), ("q2", 1, False)]


def test_the_lists_follow_the_run_order_by_score_not_the_rank_column(personas):
    comparison = make_comparison(personas.campaign, {"q": (["a", "b", "c"], ["c", "b", "a"])})
    task = comparison.tasks.get()
    lists = task_lists(comparison, [task])[task.pk]
    ext = dict(personas.campaign.documents.values_list("pk", "external_id"))
    assert [ext[d] for d in lists.baseline] == ["a", "b", "c"]
    assert [ext[d] for d in lists.candidate] == ["c", "b", "a"]


def test_a_seeded_sample_is_reproducible_and_the_seed_matters(personas):
    baseline, candidate = build_runs(personas.campaign, distinct_lists(40, depth=1))

    def sample(name: str, seed: int) -> list[str]:
        comparison = comparison_create(
            campaign=personas.campaign,
            name=name,
            baseline=baseline,
            candidate=candidate,
            sample_size=7,
            seed=seed,
        )
        return sorted(comparison.tasks.values_list("query__external_id", flat=True))

    first, again, other = sample("a", 42), sample("b", 42), sample("c", 43)
    assert len(first) == 7 and len(set(first)) == 7
    assert first == again
    assert first != other


def test_the_sample_does_not_depend_on_database_ids():
    ids = [10, 11, 12, 13, 14, 15]
    ext = ["q5", "q0", "q3", "q1", "q4", "q2"]
    shuffled = sample_queries(ids[::-1], ext[::-1], size=3, seed=7)
    assert shuffled == sample_queries(ids, ext, size=3, seed=7)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": "  "}, "Give the comparison a name"),
        ({"name": "taken"}, "already has a comparison named"),
        ({"same_run": True}, "two different runs"),
        ({"other_campaign_run": True}, "must belong to this campaign"),
        ({"sample_size": 4}, "between 1 and 3"),
        ({"sample_size": 0}, "between 1 and 3"),
        ({"depth": 0}, "between 1 and 100"),
        ({"raters_per_task": 51}, "between 1 and 50"),
        ({"unit": "pairs"}, "Unknown unit"),
    ],
)
def test_setups_that_cannot_work_are_refused_with_a_reason(personas, change, message):
    baseline, candidate = build_runs(personas.campaign, distinct_lists(3))
    comparison_create(
        campaign=personas.campaign, name="taken", baseline=baseline, candidate=candidate
    )
    options = {"name": "new", "baseline": baseline, "candidate": candidate}
    if change.pop("same_run", False):
        options["candidate"] = baseline
    if change.pop("other_campaign_run", False):
        system = System.objects.create(campaign=personas.other_campaign, name="s")
        options["candidate"] = Run.objects.create(
            campaign=personas.other_campaign, system=system, name="r"
        )
    options.update(change)
    before = (Comparison.objects.count(), SxsTask.objects.count())
    with pytest.raises(ComparisonRefused, match=message):
        comparison_create(campaign=personas.campaign, **options)
    assert (Comparison.objects.count(), SxsTask.objects.count()) == before


def test_a_campaign_without_queries_cannot_have_a_comparison(personas):
    system = System.objects.create(campaign=personas.campaign, name="s")
    a = Run.objects.create(campaign=personas.campaign, system=system, name="a")
    b = Run.objects.create(campaign=personas.campaign, system=system, name="b")
    with pytest.raises(ComparisonRefused, match="no queries"):
        comparison_create(campaign=personas.campaign, name="x", baseline=a, candidate=b)
