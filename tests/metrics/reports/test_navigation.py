"""One navigation for a campaign's reports, graded and side by side (#21): every report page,
the comparison pages included, links to all of them and to the rater preview."""

from __future__ import annotations

import pytest

from tests.annotate.sxs_helpers import distinct_lists, make_comparison, report_url

pytestmark = pytest.mark.django_db


def test_every_report_page_carries_the_same_navigation(personas):
    slug = personas.campaign.slug
    comparison = make_comparison(personas.campaign, distinct_lists(3), min_queries=1)
    pages = [
        f"/reports/{slug}/",
        f"/reports/{slug}/disagreements/",
        f"/reports/{slug}/sources/",
        f"/campaigns/{slug}/comparisons/",
        report_url(comparison),
        report_url(comparison, "sxs_review"),
        report_url(comparison, "sxs_plan"),
    ]
    manager = personas.client_for("manager")
    for url in pages:
        response = manager.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        nav = html[html.index('class="subnav report-nav"') :]
        nav = nav[: nav.index("</nav>")]
        for target in (f"/reports/{slug}/systems/", f"/campaigns/{slug}/comparisons/",
                       f"/judge/{slug}/preview/", f"/reports/{slug}/disagreements/"):  # fmt: skip
            assert target in nav, (url, target)
