"""The database work of a judging page without JavaScript, which a rater loads once per answer:
how many statements the queue page of either kind costs once the rater holds work and has
answered some, and that none of them is asked twice."""

from __future__ import annotations

from collections import Counter

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.annotate.queue_helpers import build_pool
from tests.annotate.sxs_helpers import distinct_lists, make_comparison, post_json, sxs_url

# session, user, language, campaign (with membership), the held items, the rater's progress,
# the campaign's, the last item touched (Back), the scale, the leases held before handles,
# the navigation's roles. It was 16: the progress took six statements, Back two.
GRADED_PAGE_STATEMENTS = 11
# session, user, language, campaign, comparison, runs, the held tasks, their documents, the
# rater's progress, the comparison's, the comparison's number, the last task answered (Back),
# the leases held before handles, the navigation's roles. It was 20: the progress took six
# statements (the comparison's twice).
SXS_PAGE_STATEMENTS = 14


@pytest.fixture(autouse=True)
def _no_rule_check(monkeypatch):
    """An answer that runs no quality rule (they run on every 20th answer by id)."""
    from annotate.services import quality

    monkeypatch.setattr(quality, "due", lambda answer_id: False)


def _page_statements(client, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return [query["sql"] for query in captured.captured_queries]


def _asked_twice(statements: list[str]) -> list[str]:
    return [sql for sql, n in Counter(statements).items() if n > 1]


def test_the_graded_page_takes_eleven_statements_and_asks_nothing_twice(personas):
    build_pool(personas.campaign, queries=3, docs_per_query=6)
    client = personas.client_for("rater")
    url = reverse("annotate:judge", kwargs={"slug": personas.campaign.slug})
    label = personas.campaign.labels.get(name="Good").pk
    first = client.get(url).context["item"]["id"]
    assert client.post(url, {"item": first, "label": label}).status_code == 302
    statements = _page_statements(client, url)
    assert len(statements) <= GRADED_PAGE_STATEMENTS, "\n\n".join(statements)
    assert not _asked_twice(statements)


def test_the_side_by_side_page_takes_fourteen_statements_and_asks_nothing_twice(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(3), name="A vs B")
    client = personas.client_for("rater")
    url = sxs_url(comparison)
    first = client.get(url).context["task"]["id"]
    answered = post_json(client, sxs_url(comparison, "sxs_api"), {"task": first, "chosen": "same"})
    assert answered.status_code == 200
    statements = _page_statements(client, url)
    assert len(statements) <= SXS_PAGE_STATEMENTS, "\n\n".join(statements)
    assert not _asked_twice(statements)
