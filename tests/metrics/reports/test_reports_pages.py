"""The report pages: who gets in (every page and action, every persona), what they say about
their labels, 400 for bad parameters, the CSV downloads, adjudication through the form, and how
many SQL queries each page takes (so no per-row query creeps in)."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from annotate.models import Adjudication
from tests.conftest import PERSONA_NAMES
from tests.metrics.report_helpers import make_world
from tests.support.shared_rows import rows_per_module

SLUG = "campaign-a"


def url(name: str, **kwargs) -> str:
    return reverse(f"metrics:{name}", kwargs={"slug": SLUG, **kwargs})


# The campaign's queries, runs and grades, made once for the module's tests (made per test
# they were most of each test's set-up).
_module_rows, world = rows_per_module(lambda personas: make_world(personas.campaign), name="world")


def page_urls(world) -> list[str]:
    query = world.queries[0]
    return [
        url("dashboard"),
        url("disagreements"),
        url("systems"),
        url("compare"),
        url("queries"),
        url("query", query_id=query.pk),
        url("dashboard") + "?download=raters",
        url("systems") + "?download=systems",
    ]


@pytest.mark.parametrize("persona", PERSONA_NAMES)
def test_only_the_campaigns_managers_open_the_reports(world, personas, persona):
    client = personas.client_for(persona)
    for address in page_urls(world):
        response = client.get(address)
        if persona == "manager":
            assert response.status_code == 200, address
        elif persona == "anonymous":
            assert response.status_code == 302 and "/login/" in response["Location"], address
        else:
            # A rater of the campaign, the other campaign's manager, an outsider: no such page.
            assert response.status_code == 404, address


@pytest.mark.parametrize("persona", PERSONA_NAMES)
def test_only_the_campaigns_managers_adjudicate(world, personas, persona):
    item = world.campaign.pool_items.order_by("pk").first()
    good = world.campaign.labels.get(name="Good")
    response = personas.client_for(persona).post(
        url("adjudicate", item_id=item.pk), {"label": good.pk, "note": "clear case"}
    )
    if persona == "manager":
        assert response.status_code == 302
        ruling = Adjudication.objects.get(pool_item=item)
        assert (ruling.label, ruling.manager, ruling.note) == (good, personas.manager, "clear case")
    else:
        assert response.status_code in (302, 404)
        if persona == "anonymous":
            assert "/login/" in response["Location"]
        else:
            assert response.status_code == 404
        assert not Adjudication.objects.exists()


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("systems", "k=abc", "Enter a whole number"),
        ("systems", "k=0", "greater than or equal to 1"),
        ("systems", "k=1000", "less than or equal to 100"),
        ("systems", "aggregation=mode", "Unknown aggregation rule mode"),
        ("systems", "source=nope", "No such label source"),
        ("systems", "gain=cubic", "Select a valid choice"),
        ("compare", "discount=ln", "Select a valid choice"),
        ("queries", "ideal=perfect", "Select a valid choice"),
        ("disagreements", "aggregation=mode", "Unknown aggregation rule"),
        ("compare", "a=xyz", "Choose systems A and B"),
        ("compare", "a=999999", "Choose systems A and B"),
        ("compare", "measure=bogus", "Unknown measure"),
        ("systems", "download=nothing", "Unknown table"),
        ("dashboard", "download=nothing", "Unknown table"),
    ],
)
def test_bad_parameters_answer_400_with_a_message(world, personas, name, params, message):
    response = personas.client_for("manager").get(f"{url(name)}?{params}")
    assert response.status_code == 400
    assert message in response.content.decode()


def test_a_missing_query_is_404(world, personas):
    other_query = personas.other_campaign.queries.create(external_id="x", text="x")
    response = personas.client_for("manager").get(url("query", query_id=other_query.pk))
    assert response.status_code == 404


def test_every_page_states_its_labels(world, personas):
    client = personas.client_for("manager")
    for address in page_urls(world)[1:6]:
        body = client.get(address).content.decode()
        assert "aggregated by mean" in body, address
    body = client.get(url("dashboard")).content.decode()
    assert "own grades, not aggregated" in body
    body = client.get(url("systems") + "?aggregation=majority&k=5").content.decode()
    assert "aggregated by majority" in body and "k = 5" in body


@pytest.mark.parametrize(
    ("name", "table", "first"),
    [
        ("dashboard", "raters", "rater"),
        ("dashboard", "timeline", "hour_starting"),
        ("dashboard", "agreement", "rater"),
        ("dashboard", "pairs", "rater_a"),
        ("disagreements", "disagreements", "query_id"),
        ("systems", "systems", "system"),
        ("systems", "curves", "k"),
        ("compare", "differences", "query_id"),
        ("compare", "tests", "test"),
        ("compare", "histogram", "B - A from"),
        ("queries", "queries", "query_id"),
    ],
)
def test_every_table_downloads_as_csv(world, personas, name, table, first):
    response = personas.client_for("manager").get(f"{url(name)}?download={table}")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith(f'attachment; filename="{SLUG}-')
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][0] == first and len(rows) > 1


def test_the_drilldown_downloads_its_lists(world, personas):
    query = world.queries[0]
    response = personas.client_for("manager").get(
        url("query", query_id=query.pk) + "?k=5&download=lists"
    )
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    ranked = [r for r in rows if r["position"]]
    assert len(ranked) == 3 * 5  # three systems' top 5
    assert {r["system"] for r in ranked} == {"alpha", "beta", "gamma"}
    # Then the judged documents no system put in its top 5, without a position.
    assert {r["system"] for r in rows if not r["position"]} <= {"(judged, in no top k)"}
    scores = personas.client_for("manager").get(
        url("query", query_id=query.pk) + "?k=5&download=scores"
    )
    table = list(csv.DictReader(io.StringIO(scores.content.decode())))
    assert [r["system"] for r in table] == ["alpha", "beta", "gamma"] and "NDCG@5" in table[0]


def test_the_systems_csv_matches_the_page(world, personas):
    client = personas.client_for("manager")
    rows = list(
        csv.DictReader(
            io.StringIO(client.get(url("systems") + "?download=systems").content.decode())
        )
    )
    body = client.get(url("systems")).content.decode()
    for row in rows:
        assert f"{float(row['NDCG@10']):.4f}" in body
        # The CSV keeps each system's own interval for analysis; the page no longer shows it.
        assert f"[{float(row['NDCG@10 low']):.4f}, {float(row['NDCG@10 high']):.4f}]" not in body


@pytest.mark.parametrize(
    ("name", "most"),
    [
        # Each count includes the one query for the language (config.locale) and the one for
        # the raters whose answers are excluded (the note, #18).
        ("dashboard", 15),
        ("disagreements", 12),
        ("systems", 14),  # 13, plus the system marked as in production (the paired baseline)
        ("compare", 16),  # 14, plus the production system and the declared comparison (defaults)
        ("queries", 14),
        ("query", 17),
    ],
)
def test_each_page_takes_a_fixed_number_of_queries(
    world, personas, name, most, django_assert_max_num_queries
):
    """Warm the snapshots first; then a page's queries must not depend on the data size
    (the same bound holds for a campaign twice as big, checked below)."""
    client = personas.client_for("manager")
    kwargs = {"query_id": world.queries[0].pk} if name == "query" else {}
    address = url(name, **kwargs)
    assert client.get(address).status_code == 200
    with django_assert_max_num_queries(most):
        assert client.get(address).status_code == 200


def test_an_adjudication_is_marked_in_the_list_and_the_drilldown(world, personas):
    client = personas.client_for("manager")
    listing = client.get(url("disagreements")).content.decode()
    assert "Adjudicated" not in listing
    item = world.campaign.pool_items.order_by("pk").first()
    bad = world.campaign.labels.get(name="Bad")
    response = client.post(
        url("adjudicate", item_id=item.pk),
        {"label": bad.pk, "note": "accessory", "return_query": "aggregation=median&x=\r\nSet:"},
    )
    assert response.status_code == 302
    assert response["Location"].startswith(url("disagreements") + "?aggregation=median")
    drill = client.get(url("query", query_id=item.query_id)).content.decode()
    assert "Adjudicated" in drill and "1 pair settled by a manager" in drill
    listing = client.get(url("disagreements")).content.decode()
    if f'id="item-{item.pk}"' in listing:  # listed only when its raters disagree
        assert "Adjudicated" in listing
    client.post(url("adjudicate", item_id=item.pk), {"action": "clear"})
    assert not Adjudication.objects.exists()


def test_adjudicating_with_a_bad_label_is_400(world, personas):
    item = world.campaign.pool_items.order_by("pk").first()
    foreign = personas.other_campaign.labels.first()
    client = personas.client_for("manager")
    for data in ({"label": foreign.pk}, {"label": "x"}, {}):
        response = client.post(url("adjudicate", item_id=item.pk), data)
        assert response.status_code == 400
        assert "Choose one of the campaign" in response.content.decode()
    other_item = personas.other_campaign.pool_items.create(
        query=personas.other_campaign.queries.create(external_id="z", text="z"),
        document=personas.other_campaign.documents.create(external_id="z"),
    )
    good = world.campaign.labels.get(name="Good")
    response = client.post(url("adjudicate", item_id=other_item.pk), {"label": good.pk})
    assert response.status_code == 400
    assert not Adjudication.objects.exists()


def test_adjudication_needs_post(world, personas):
    item = world.campaign.pool_items.order_by("pk").first()
    response = personas.client_for("manager").get(url("adjudicate", item_id=item.pk))
    assert response.status_code == 405


def test_the_judged_warning_shows_where_judgments_are_few(world, personas):
    body = personas.client_for("manager").get(url("systems") + "?k=20").content.decode()
    assert 'data-testid="judged-warning"' in body
    assert "say more about missing judgments than about the systems" in body


def test_the_report_nav_links_the_label_sources_report(world, personas):
    html = personas.client_for("manager").get(url("dashboard")).content.decode()
    sources = reverse("metrics:sources", kwargs={"slug": "campaign-a"})
    assert f'href="{sources}"' in html


def test_the_comparison_says_first_how_many_queries_a_system_lacks(world, personas):
    # gamma has no results for q03 (of 8 queries): it counts as 0 there, and the page says so
    # before any figure.
    runs = {r.name: r.pk for r in world.runs}
    client = personas.client_for("manager")
    html = client.get(url("compare") + f"?a={runs['alpha']}&b={runs['gamma']}").content.decode()
    notice = 'data-testid="missing-notice">B (gamma) has no results for 1 of the 8 queries.'
    assert notice in html
    assert html.index("missing-notice") < html.index('data-testid="comparison"')
    html = client.get(url("compare") + f"?a={runs['alpha']}&b={runs['beta']}").content.decode()
    assert "missing-notice" not in html


def test_the_compare_api_says_how_many_queries_a_run_lacks(world, personas):
    client = personas.client_for("manager")
    answer = client.get(
        f"/api/v1/campaigns/{SLUG}/scores/compare/", {"a": "alpha", "b": "gamma"}
    ).json()
    assert list(answer)[:2] == ["notice", "missing_queries"]
    assert answer["missing_queries"] == {"a": 0, "b": 1}
    assert answer["notice"].startswith("B (gamma) has no results for 1 of the 8 queries")
    assert answer["n"] == 8  # counted as 0, not dropped


def _paired_cell(html: str, run_id: int) -> str:
    start = html.index(f'<tr data-run="{run_id}">', html.index('data-testid="paired-table"'))
    return html[start : html.index("</tr>", start)]


def test_the_systems_page_shows_paired_differences_against_the_production_system(world, personas):
    from scipy.stats import ttest_rel

    from annotate.models import System
    from metrics.core import evaluate
    from metrics.services.snapshots import scores_snapshot

    client = personas.client_for("manager")
    runs = {r.name: r for r in world.runs}
    html = client.get(url("systems")).content.decode()
    assert 'data-testid="bars-chart"' not in html  # no unpaired per-system bars
    assert "Baseline: <strong>alpha</strong> (the first system" in html
    System.objects.filter(campaign=world.campaign, name="beta").update(is_production=True)
    html = client.get(url("systems")).content.decode()
    assert "Baseline: <strong>beta</strong> (the system in production)" in html
    # Each other system's NDCG@10 difference from beta, with scipy's paired t-interval.
    from metrics.reports.forms import ScoresForm

    form = ScoresForm({}, campaign=world.campaign)
    assert form.is_valid()
    fresh = scores_snapshot(campaign=world.campaign, settings=form.settings, rule=form.rule,
                            source=None, light=False)  # fmt: skip
    per_run = fresh.snapshot.per_query["runs"]
    key = fresh.summary["measures"][0]["key"]
    beta = per_run[str(runs["beta"].pk)][key]
    for name in ("alpha", "gamma"):
        other = per_run[str(runs[name].pk)][key]
        ref = ttest_rel(other, beta)
        ci = ref.confidence_interval(0.95)
        cell = _paired_cell(html, runs[name].pk)
        diff = sum(other) / len(other) - sum(beta) / len(beta)
        assert f"{diff:+.4f}" in cell.replace("+-", "-")
        assert f"[{ci.low:.4f}, {ci.high:.4f}]" in cell
        assert f"p = {ref.pvalue:.4f}" in cell
    assert f'<tr data-run="{runs["beta"].pk}">' not in html[html.index("paired-table") :]
    # The manager may pick another baseline.
    html = client.get(url("systems") + f"?baseline={runs['gamma'].pk}").content.decode()
    assert "Baseline: <strong>gamma</strong> (your pick)" in html
    del evaluate


def test_the_systems_table_puts_production_first_and_shows_no_separate_intervals(world, personas):
    import re

    from annotate.models import System

    client = personas.client_for("manager")
    runs = {r.name: r for r in world.runs}
    System.objects.filter(campaign=world.campaign, name="gamma").update(is_production=True)
    html = client.get(url("systems")).content.decode()
    table = html[html.index('data-testid="systems-table"') : html.index("</table>")]
    order = re.findall(r'<tr data-run="(\d+)">', table)
    assert order == [str(runs[n].pk) for n in ("gamma", "alpha", "beta")]
    assert 'data-testid="baseline-mark"' in table.split("</tr>")[1]  # gamma's row, the first
    # Means only: no per-system interval next to another system's to compare by overlap.
    assert 'class="ci"' not in table and "[" not in table.replace("[0, 1]", "")
    # The paired differences come right after the table, before anything else.
    after = html[html.index("</table>") :]
    assert after.index('data-testid="paired"') < after.index('data-testid="by-rule"')
    assert after.index('data-testid="paired"') < after.index('aria-labelledby="curves-title"')
    # Each system keeps its colour (its place in the curves chart), whatever the row order.
    assert f'<tr data-run="{runs["gamma"].pk}"><th scope="row"><span class="swatch s2"' in table
    # The systems page's own comparison form starts from the baseline as A.
    form = html[html.index('id="cmp-a"') :]
    assert re.search(r'<option value="(\d+)" selected', form).group(1) == str(runs["gamma"].pk)


def test_the_compare_form_presets_production_as_baseline_a(world, personas):
    import re

    from annotate.models import System

    System.objects.filter(campaign=world.campaign, name="gamma").update(is_production=True)
    runs = {r.name: r for r in world.runs}
    html = personas.client_for("manager").get(url("compare")).content.decode()

    def selected(select_id: str) -> str:
        block = html[html.index(f'id="{select_id}"') :]
        block = block[: block.index("</select>")]
        return re.search(r'<option value="(\d+)" selected', block).group(1)

    assert selected("cmp-a") == str(runs["gamma"].pk)
    assert selected("cmp-b") != str(runs["gamma"].pk)
