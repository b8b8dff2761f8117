"""The report pages' tests that make their own campaigns, or none: the reports index, the
campaign page's links to the reports, and the query count of a small and a big campaign.
(Apart from test_reports_pages.py, whose tests share one campaign made once.)"""

from __future__ import annotations

from django.urls import reverse

from tests.metrics.report_helpers import make_world

SLUG = "campaign-a"


def url(name: str, **kwargs) -> str:
    return reverse(f"metrics:{name}", kwargs={"slug": SLUG, **kwargs})


def test_the_reports_index_lists_only_managed_campaigns(personas):
    response = personas.client_for("manager").get(reverse("metrics:index"))
    assert response.status_code == 200
    assert b"Campaign A" in response.content and b"Campaign B" not in response.content
    nav = personas.client_for("manager").get(reverse("annotate:home")).content.decode()
    assert f'href="{reverse("metrics:index")}" data-nav="reports"' in nav


def test_the_campaign_page_links_the_reports(personas):
    body = personas.client_for("manager").get(f"/campaigns/{SLUG}/").content.decode()
    for name in ("dashboard", "disagreements", "systems"):
        assert url(name) in body


def test_a_bigger_campaign_takes_no_more_queries(personas):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    small = make_world(personas.campaign, n_queries=3, run_names=("a", "b"))
    big = make_world(
        personas.other_campaign, n_queries=12, run_names=("a", "b", "c", "d"), rater_prefix="other"
    )
    counts = {}
    for world, client in (
        (small, personas.client_for("manager")),
        (big, personas.client_for("other_manager")),
    ):
        slug = world.campaign.slug
        for name in ("dashboard", "disagreements", "systems", "compare", "queries"):
            address = reverse(f"metrics:{name}", kwargs={"slug": slug})
            client.get(address)  # snapshots computed
            with CaptureQueriesContext(connection) as ctx:
                assert client.get(address).status_code == 200
            counts.setdefault(name, []).append(len(ctx.captured_queries))
    for name, (a, b) in counts.items():
        assert a == b, (name, a, b)
