"""Fixtures of the API tests: a client per persona and a campaign with data in it. (The caches
are emptied before every test by tests/conftest.py.)"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from rest_framework.test import APIClient

from annotate.models import Comparison, Grade, PoolItem, Run
from annotate.services.campaigns import membership_set
from tests.annotate.judgment_data import grade, make_run, pool_item
from tests.annotate.sxs_helpers import make_comparison


def api_client_for(personas, name: str) -> APIClient:
    """A client signed in as the persona (a session, like the browser), or anonymous."""
    client = APIClient()
    if name != "anonymous":
        client.force_authenticate(getattr(personas, name))
    return client


@dataclass
class CampaignData:
    run: Run
    other_run: Run
    item: PoolItem
    grade: Grade
    comparison: Comparison
    other_comparison: Comparison


@pytest.fixture
def data(personas) -> CampaignData:
    """Campaign A and B each with a run, a pool item graded by their rater and a comparison;
    A also has a second run. Nothing of B may ever reach a persona of A, and the reverse."""
    return make_campaign_data(personas)


def make_campaign_data(personas) -> CampaignData:
    """The rows of the `data` fixture, made in the personas' campaigns."""
    a, b = personas.campaign, personas.other_campaign
    run = make_run(a, "bm25", [("q1", "d1", 1, 3.0), ("q1", "d2", 2, 2.0), ("q2", "d3", 1, 1.0)])
    make_run(a, "bert", [("q1", "d2", 1, 3.0), ("q1", "d1", 2, 2.0), ("q2", "d4", 1, 1.0)])
    other_run = make_run(b, "b-run", [("bq1", "bd1", 1, 1.0)])
    item = pool_item(a, "q1", "d1")
    pool_item(a, "q1", "d2")
    given = grade(item, personas.rater, "Good")
    grade(pool_item(b, "bq1", "bd1"), personas.other_rater, "Bad")
    lists = {
        f"s{i}": ([f"s{i}-a{j}" for j in range(3)], [f"s{i}-b{j}" for j in range(3)])
        for i in (1, 2)
    }
    comparison = make_comparison(a, lists, name="A: prod vs cand")
    other = make_comparison(b, {"bx": (["bx1"], ["bx2"])}, name="B: prod vs cand")
    return CampaignData(run, other_run, item, given, comparison, other)


@pytest.fixture
def second_rater(personas):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username="rater2", password="x")
    membership_set(campaign=personas.campaign, user=user, role="rater")
    return user
