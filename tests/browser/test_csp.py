"""Every kind of page renders under the Content-Security-Policy without a violation in a real
Chromium: the manager's pages, the reports with their charts, the admin, Swagger UI, ReDoc,
the browsable API, and the rater's graded and side-by-side screens (with guidelines that
carry images from this site and from a host the campaign allows)."""

from __future__ import annotations

import pytest

from annotate.models import Campaign
from tests.annotate.sxs_helpers import distinct_lists, make_comparison
from tests.browser.session import log_in
from tests.conftest import PASSWORD
from tests.metrics.report_helpers import make_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
    e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def _watch(page) -> list[str]:
    seen: list[str] = []
    page.on(
        "console",
        lambda m: seen.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.on("pageerror", lambda e: seen.append(f"page error: {e}"))
    page.add_init_script(WATCH)
    return seen


def _log_in(page, live_server, username: str) -> None:
    # The first request loads the URL configuration (and with it numpy, matplotlib...): slow
    # on a busy machine, so it gets a longer wait than the pages after it.
    page.goto(f"{live_server.url}/login/", timeout=120_000)
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/login/" not in url)


def _open(page, url: str) -> None:
    response = page.goto(url)
    assert response is not None and response.status < 400, (url, response and response.status)
    assert "content-security-policy" in response.headers, url


def _check(page, url: str, seen: list[str], blocked_host: str = "") -> None:
    """Once the network has been quiet for half a second, the page's reports."""
    page.wait_for_load_state("networkidle")
    seen.extend(page.evaluate("window.__csp"))
    if blocked_host:
        # A request to another host that the policy is there to stop: it must be blocked,
        # and be the only report.
        assert seen and all(blocked_host in report for report in seen), (url, seen)
        seen.clear()
    assert seen == [], (url, seen)


def _visit(
    page, url: str, seen: list[str], wait_for: str | None = None, blocked_host: str = ""
) -> None:
    _open(page, url)
    if wait_for:
        page.wait_for_selector(wait_for)
    _check(page, url, seen, blocked_host)


def _visit_in_turn(page, urls: list[str], seen: list[str], tabs: int = 4) -> None:
    """_visit for each url, in `tabs` tabs taking the urls in turn: each page is still checked
    after half a second without a request (networkidle), but that half-second passes while the
    next tabs load their pages instead of one page after the other. A tab's page is checked
    before the tab opens its next one."""
    watched = [(page, seen)]
    for _ in range(tabs - 1):
        tab = page.context.new_page()
        tab.set_default_timeout(15_000)
        watched.append((tab, _watch(tab)))
    shown: list[str | None] = [None] * tabs
    for n, url in enumerate(urls):
        tab, tab_seen = watched[n % tabs]
        if shown[n % tabs] is not None:
            _check(tab, shown[n % tabs], tab_seen)
        _open(tab, url)
        shown[n % tabs] = url
    for (tab, tab_seen), url in zip(watched, shown, strict=True):
        if url is not None:
            _check(tab, url, tab_seen)
    for tab, _ in watched[1:]:
        tab.close()


@pytest.fixture
def world(personas):
    campaign = personas.campaign
    make_world(campaign, run_names=("alpha", "beta"), missing=None)
    comparison = make_comparison(campaign, distinct_lists(2), name="alpha vs beta")
    Campaign.objects.filter(pk=campaign.pk).update(
        guidelines="Read **carefully**.\n\n![logo](/static/favicon.ico)",
        image_hosts="127.0.0.1:1",
    )
    personas.manager.is_staff = True
    personas.manager.save()
    return comparison


def test_the_managers_pages_render_without_a_csp_violation(world, personas, live_server, page):
    from tests.llmjudge.helpers import make_judge

    make_judge(personas.campaign, "http://127.0.0.1:9/v1")  # its page previews a prompt
    seen = _watch(page)
    # Signed in by cookie: the login page and its form are checked with the rater's screens.
    log_in(page, live_server.url, "manager", home=False)
    base = live_server.url
    urls = [
        "/",
        "/campaigns/",
        "/campaigns/campaign-a/",
        "/campaigns/campaign-a/settings/",
        "/campaigns/campaign-a/raters/",
        "/campaigns/campaign-a/invitations/",
        "/preferences/",
        "/campaigns/campaign-a/comparisons/",
        f"/campaigns/campaign-a/comparisons/{world.pk}/",
        "/tokens/",
        "/reports/campaign-a/",
        "/reports/campaign-a/systems/",
        "/reports/campaign-a/compare/",
        "/reports/campaign-a/queries/",
        "/reports/campaign-a/sources/",
        "/reports/campaign-a/disagreements/",
        "/campaigns/campaign-a/judges/",
        "/campaigns/campaign-a/judges/fake/",
        "/admin/",
        "/admin/annotate/grade/",
        "/api/v1/campaigns/",
        "/password/change/",
    ]
    _visit_in_turn(page, [base + url for url in urls], seen)
    _visit(page, base + "/api/v1/docs/", seen, wait_for=".swagger-ui .info")
    # ReDoc's bundle always asks for its maker's logo from their CDN; the policy blocks it
    # (the page then shows the link without the logo).
    _visit(page, base + "/api/v1/redoc/", seen, wait_for="h1", blocked_host="cdn.redoc.ly")


def test_the_raters_screens_render_without_a_csp_violation(world, personas, live_server, page):
    seen = _watch(page)
    _log_in(page, live_server, "rater")
    page.context.clear_cookies()
    _visit(page, live_server.url + "/login/", seen)
    _log_in(page, live_server, "rater")
    _visit(page, live_server.url + "/judge/campaign-a/", seen, wait_for="text=Read")
    _visit(page, live_server.url + f"/sxs/campaign-a/{world.pk}/", seen)
