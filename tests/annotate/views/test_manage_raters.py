"""Raters of a campaign: adding and removing them, their progress, raters needed per query."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotate.judging.graded import grade_submit, item_skip, queue_items
from annotate.models import Grade, Lease, Membership, PoolItem, Role, Skip
from annotate.selectors.progress import median_seconds_by_rater, rater_progress_table
from tests.annotate.queue_helpers import build_pool, make_raters


def _url(personas, name: str, **kwargs) -> str:
    return reverse(f"annotate:{name}", kwargs={"slug": personas.campaign.slug, **kwargs})


def _is_rater(personas, user) -> bool:
    return Membership.objects.filter(
        campaign=personas.campaign, user=user, role=Role.RATER
    ).exists()


def test_it_adds_an_existing_account_as_rater(personas):
    client = personas.client_for("manager")
    response = client.post(_url(personas, "manage_rater_add"), {"username": " outsider "})
    assert response.status_code == 302
    assert _is_rater(personas, personas.outsider)
    page = client.get(_url(personas, "manage_raters")).content.decode()
    assert "outsider is now a rater" in page
    assert 'data-rater="outsider"' in page


def test_it_refuses_an_unknown_username_with_a_message(personas):
    client = personas.client_for("manager")
    response = client.post(_url(personas, "manage_rater_add"), {"username": "nobody"})
    assert response.status_code == 400
    assert "There is no account named “nobody”" in response.content.decode()
    assert Membership.objects.filter(campaign=personas.campaign).count() == 2


def test_it_refuses_an_empty_username(personas):
    response = personas.client_for("manager").post(_url(personas, "manage_rater_add"), {})
    assert response.status_code == 400
    assert "This field is required" in response.content.decode()


def test_it_refuses_to_demote_a_manager_or_add_a_rater_twice(personas):
    client = personas.client_for("manager")
    response = client.post(_url(personas, "manage_rater_add"), {"username": "manager"})
    assert response.status_code == 400
    assert "manages this campaign" in response.content.decode()
    assert Membership.objects.get(campaign=personas.campaign, user=personas.manager).role == (
        Role.MANAGER
    )
    response = client.post(_url(personas, "manage_rater_add"), {"username": "rater"})
    assert response.status_code == 400
    assert "already a rater" in response.content.decode()


def test_removing_a_rater_keeps_their_grades_and_releases_their_leases(personas):
    campaign, rater = personas.campaign, personas.rater
    build_pool(campaign, queries=2, docs_per_query=3)
    items = queue_items(rater=rater, campaign=campaign)
    label = campaign.labels.get(name="Good")
    grade_submit(rater=rater, campaign=campaign, item_id=items[0].pk, label_id=label.pk)
    item_skip(rater=rater, campaign=campaign, item_id=items[1].pk)
    assert Lease.objects.filter(rater=rater).count() == 1

    client = personas.client_for("manager")
    response = client.post(_url(personas, "manage_rater_remove", user_id=rater.pk), follow=True)
    assert response.redirect_chain[0][1] == 302
    assert "1 held item(s) went back to the queue" in response.content.decode()
    assert not _is_rater(personas, rater)
    assert Lease.objects.filter(rater=rater).count() == 0
    assert Grade.objects.filter(rater=rater).count() == 1
    assert Skip.objects.filter(rater=rater).count() == 1
    # The released item is open again for another rater.
    [other] = make_raters(campaign, 1)
    assert items[2].pk in {item.pk for item in queue_items(rater=other, campaign=campaign)}


def test_removing_someone_who_is_not_a_rater_is_refused(personas):
    client = personas.client_for("manager")
    response = client.post(_url(personas, "manage_rater_remove", user_id=personas.manager.pk))
    assert response.status_code == 400
    assert "not a rater of this campaign" in response.content.decode()
    assert _is_rater(personas, personas.rater)
    response = client.post(_url(personas, "manage_rater_remove", user_id=999_999))
    assert response.status_code == 404


def test_it_sets_raters_needed_for_a_querys_items(personas):
    build_pool(personas.campaign, queries=2, docs_per_query=2)
    client = personas.client_for("manager")
    response = client.post(_url(personas, "manage_needed"), {"query": "q1", "raters_needed": 3})
    assert response.status_code == 302
    needed = dict(
        PoolItem.objects.filter(campaign=personas.campaign).values_list(
            "query__external_id", "raters_needed"
        )
    )
    assert needed == {"q0": None, "q1": 3}
    client.post(_url(personas, "manage_needed"), {"query": "q1", "raters_needed": ""})
    assert not PoolItem.objects.filter(raters_needed__isnull=False).exists()


def test_raters_needed_refuses_bad_input(personas):
    build_pool(personas.campaign, queries=1, docs_per_query=2)
    build_pool(personas.other_campaign, queries=1, docs_per_query=1)
    client = personas.client_for("manager")
    for data, message in [
        ({"query": "q9", "raters_needed": 2}, "no query with the id “q9”"),
        ({"query": "q0", "raters_needed": 0}, "greater than or equal to 1"),
        ({"query": "q0", "raters_needed": "many"}, "Enter a whole number"),
        ({"raters_needed": 2}, "This field is required"),
    ]:
        response = client.post(_url(personas, "manage_needed"), data)
        assert response.status_code == 400
        assert message in response.content.decode()
    assert not PoolItem.objects.filter(raters_needed__isnull=False).exists()


def _work(campaign, rater, plan: list[tuple[str, float | None]]) -> None:
    """Walk the rater's queue: ("Good", 4.0) grades with a time, ("cant", s) can't judge,
    ("skip", None) skips."""
    labels = {x.name: x.pk for x in campaign.labels.all()}
    for action, seconds in plan:
        item = queue_items(rater=rater, campaign=campaign)[0]
        if action == "skip":
            item_skip(rater=rater, campaign=campaign, item_id=item.pk)
        else:
            grade_submit(
                rater=rater,
                campaign=campaign,
                item_id=item.pk,
                label_id=labels.get(action),
                cant_judge=action == "cant",
                seconds=seconds,
            )


def test_progress_counts_and_medians_match_a_hand_built_case(personas):
    campaign = personas.campaign
    build_pool(campaign, queries=4, docs_per_query=3)
    ann, bob = make_raters(campaign, 2, prefix="p")
    # ann: grades taking 4, 10, 6 and 30 s (median of 4, 6, 10, 30 = (6 + 10) / 2 = 8),
    # one can't-judge (its 100 s do not count), one skip.
    _work(
        campaign,
        ann,
        [("Good", 4), ("Bad", 10), ("cant", 100), ("Fair", 6), ("skip", None), ("Good", 30)],
    )
    # bob: 3 and 5 s (median 4), one grade without a time (not in the median), two skips.
    _work(campaign, bob, [("Fair", 3), ("skip", None), ("Good", None), ("Bad", 5), ("skip", None)])
    held = len(queue_items(rater=ann, campaign=campaign))  # ann leases her next query
    rows = {row.username: row for row in rater_progress_table(campaign=campaign)}
    assert list(rows) == ["p0", "p1", "rater"]
    ann_row, bob_row, idle = rows["p0"], rows["p1"], rows["rater"]
    assert (ann_row.grades, ann_row.cant_judge, ann_row.skips) == (4, 1, 1)
    assert ann_row.median_seconds == 8.0
    assert (bob_row.grades, bob_row.cant_judge, bob_row.skips) == (3, 0, 2)
    assert bob_row.median_seconds == 4.0
    assert (idle.grades, idle.skips, idle.median_seconds, idle.last_activity) == (0, 0, None, None)
    last_skip = Skip.objects.filter(rater=bob).latest("created_at").created_at
    assert bob_row.last_activity == last_skip
    assert held > 0
    assert (ann_row.holding, bob_row.holding) == (held, Lease.objects.filter(rater=bob).count())

    page = personas.client_for("manager").get(_url(personas, "manage_raters")).content.decode()
    assert '<td class="num">8.0</td>' in page
    assert '<td class="num">4.0</td>' in page


def test_median_helper_on_odd_and_even_groups():
    import numpy as np

    medians = median_seconds_by_rater(
        np.array([2, 1, 2, 1, 1, 3], dtype=np.int64), np.array([9.0, 3.0, 1.0, 1.0, 2.0, 7.0])
    )
    assert medians == {1: 2.0, 2: 5.0, 3: 7.0}
    assert median_seconds_by_rater(np.array([], dtype=np.int64), np.array([])) == {}


def _progress_queries(personas) -> int:
    client = personas.client_for("manager")
    url = _url(personas, "manage_raters")
    client.get(url)  # warm up the session and user lookups
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_the_progress_page_does_not_query_per_rater(personas):
    campaign = personas.campaign
    build_pool(campaign, queries=12, docs_per_query=2)
    raters = make_raters(campaign, 2, prefix="a")
    for rater in raters:
        _work(campaign, rater, [("Good", 5), ("skip", None)])
    with_two = _progress_queries(personas)
    raters = make_raters(campaign, 8, prefix="b")
    for rater in raters:
        _work(campaign, rater, [("Good", 5), ("cant", 2), ("skip", None)])
    assert _progress_queries(personas) == with_two


def test_removing_a_rater_also_frees_the_side_by_side_tasks_they_hold(personas):
    from annotate.judging.sxs import sxs_queue
    from annotate.models import TaskLease
    from tests.annotate.sxs_helpers import distinct_lists, make_comparison

    comparison = make_comparison(personas.campaign, distinct_lists(3))
    assert sxs_queue(rater=personas.rater, comparison=comparison)
    assert TaskLease.objects.filter(rater=personas.rater).exists()
    response = personas.client_for("manager").post(
        _url(personas, "manage_rater_remove", user_id=personas.rater.pk)
    )
    assert response.status_code == 302
    assert not TaskLease.objects.filter(rater=personas.rater).exists()
