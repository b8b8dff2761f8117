"""The manager's model judge pages: who may see them, the form's checks, the prompt preview
of the posted template, the dry run, and a run started as a job."""

from __future__ import annotations

import pytest
from django.urls import reverse

from jobs.models import Job
from llmjudge.models import ModelJudge
from llmjudge.prompt import DEFAULT_TEMPLATE
from tests.llmjudge.helpers import make_items, make_judge

pytestmark = pytest.mark.django_db(databases=["default", "jobs"])


def form_data(**changes) -> dict:
    data = {
        "name": "gpt", "base_url": "http://127.0.0.1:9/v1", "model": "m-1",
        "api_key_env": "LLMJUDGE_KEY_OPENAI", "temperature": "0", "samples": "1",
        "max_concurrency": "2", "requests_per_minute": "60", "max_requests": "100",
        "max_tokens": "100000", "max_output_tokens": "100", "timeout_seconds": "30",
        "scope": "pool", "query_ids": "", "examples": "0", "template": DEFAULT_TEMPLATE,
    }  # fmt: skip
    return data | changes


def test_only_the_campaigns_managers_see_or_change_its_judges(personas):
    c = personas.campaign
    judge = make_judge(c, "http://127.0.0.1:9/v1")
    urls = [reverse("llmjudge:judges", args=[c.slug]),
            reverse("llmjudge:judge", args=[c.slug, judge.name])]  # fmt: skip
    for url in urls:
        assert personas.client_for("manager").get(url).status_code == 200
        for who in ("other_manager", "rater", "outsider"):
            client = personas.client_for(who)
            assert client.get(url).status_code == 404
            assert client.post(url, form_data() | {"action": "run"}).status_code == 404
    assert Job.objects.count() == 0 and ModelJudge.objects.count() == 1
    for url in urls:  # an anonymous visitor is sent to log in
        assert personas.client_for("anonymous").get(url).status_code == 302


def test_a_manager_creates_a_judge_and_the_key_itself_is_never_asked_for(personas):
    c = personas.campaign
    client = personas.client_for("manager")
    url = reverse("llmjudge:judges", args=[c.slug])
    page = client.get(url).content.decode()
    assert "sends each item" in page and "api_key_env" in page and 'name="api_key"' not in page
    response = client.post(url, form_data())
    assert response.status_code == 302
    judge = ModelJudge.objects.get(campaign=c)
    assert judge.api_key_env == "LLMJUDGE_KEY_OPENAI" and judge.source_name == "model:gpt"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"api_key_env": "sk-abc123"}, "An environment variable name"),
        # The worker's own secrets cannot be sent to an endpoint of the manager's choosing.
        ({"api_key_env": "SECRET_KEY"}, "SECRET_KEY may not be used"),
        ({"api_key_env": "DATABASE_URL"}, "DATABASE_URL may not be used"),
        ({"template": "{query} {password}"}, "Unknown placeholders: password"),
        ({"temperature": "3"}, "less than or equal to 2"),
        ({"base_url": "not a url"}, "Enter a valid URL"),
        ({"samples": "0"}, "greater than or equal to 1"),
        # Bounded (issue 15): the template goes into every request, the ids into a query.
        ({"template": "{query}" + "t" * 50_000}, "the limit is 50,000"),
        ({"query_ids": "q1\n" * 70_000}, "the limit is 200,000"),
    ],
)
def test_bad_settings_are_refused_with_a_message(personas, change, message):
    c = personas.campaign
    response = personas.client_for("manager").post(
        reverse("llmjudge:judges", args=[c.slug]), form_data(**change)
    )
    assert response.status_code == 400 and message in response.content.decode()
    assert not ModelJudge.objects.exists()


def test_the_deployment_chooses_the_key_variables_and_endpoints(personas, settings):
    c = personas.campaign
    client = personas.client_for("manager")
    url = reverse("llmjudge:judges", args=[c.slug])
    settings.LLMJUDGE_KEY_VARIABLES = ["OPENAI_API_KEY"]
    settings.LLMJUDGE_ENDPOINTS = ["https://api.openai.com/v1", "http://127.0.0.1:11434/"]
    refused = client.post(url, form_data(base_url="http://169.254.169.254/latest"))
    assert refused.status_code == 400
    assert "allows only these endpoints: https://api.openai.com/v1" in refused.content.decode()
    listed = form_data(api_key_env="OPENAI_API_KEY", base_url="http://127.0.0.1:11434/v1")
    assert client.post(url, listed).status_code == 302


def test_the_preview_shows_the_posted_template_for_the_chosen_item_without_saving(personas):
    c = personas.campaign
    c.guidelines = "Judge the page, not the site."
    c.save()
    items = make_items(c, {("q1", "d1"): "first snippet", ("q2", "d2"): "second snippet"})
    judge = make_judge(c, "http://127.0.0.1:9/v1")
    url = reverse("llmjudge:judge", args=[c.slug, judge.name])
    client = personas.client_for("manager")
    page = client.get(url).content.decode()
    assert "first snippet" in page and "Judge the page, not the site." in page
    chosen = f"{items[1].query_id}:{items[1].document_id}"
    posted = form_data(name="fake", template="Q={query} S={snippet}", item=chosen)
    response = client.post(url, posted | {"action": "preview"})
    text = response.content.decode()
    assert response.status_code == 200 and "Q=text of q2 S=second snippet" in text
    judge.refresh_from_db()
    assert judge.template == DEFAULT_TEMPLATE  # a preview saves nothing
    bad = client.post(url, posted | {"action": "preview", "template": "{nope}"})
    assert bad.status_code == 400 and "Unknown placeholders: nope" in bad.content.decode()


def test_the_dry_run_counts_and_run_starts_a_job(personas):
    c = personas.campaign
    make_items(c, {("q1", "d1"): "a", ("q1", "d2"): "b", ("q1", "d3"): "c"})
    judge = make_judge(c, "http://127.0.0.1:9/v1", samples=2, max_requests=4)
    url = reverse("llmjudge:judge", args=[c.slug, judge.name])
    client = personas.client_for("manager")
    dry = client.post(url, {"action": "dry"}).content.decode()
    assert "3 items × 2 samples = 6 answers: 0 in the cache, 6 requests to send (" in dry
    assert "more requests than the budget of 4" in dry
    assert Job.objects.count() == 0
    response = client.post(url, {"action": "run"})
    assert response["Location"] == reverse("jobs:campaign", args=[c.slug])
    job = Job.objects.get()
    assert job.kind == "model" and job.params["judge"] == judge.pk and job.campaign_id == c.pk
    # A second run while the first is queued is refused with a message.
    again = client.post(url, {"action": "run"}, follow=True)
    assert f"already queued (job {job.pk})" in again.content.decode()
    assert Job.objects.count() == 1


def test_the_judge_page_shows_the_unreadable_replies_as_sent(personas, server):
    from llmjudge.models import JudgeRun
    from llmjudge.run import judge_run

    c = personas.campaign
    make_items(c, {("q1", "d1"): "MODE=malformed", ("q1", "d2"): "ANSWER=2"})
    judge = make_judge(c, server.base_url)
    judge_run(judge=judge, run=JudgeRun.objects.create(judge=judge), progress=lambda d, t: None)
    url = reverse("llmjudge:judge", args=[c.slug, judge.name])
    page = personas.client_for("manager").get(url).content.decode()
    assert 'data-testid="unreadable"' in page and "maybe a 2 or a 3" in page
    unreadable = page.split('data-testid="unreadable"', 1)[1].split("</table>", 1)[0]
    assert unreadable.count("<td>d1</td>") == 1 and "<td>d2</td>" not in unreadable


def test_an_unknown_action_is_a_400(personas):
    c = personas.campaign
    judge = make_judge(c, "http://127.0.0.1:9/v1")
    url = reverse("llmjudge:judge", args=[c.slug, judge.name])
    assert personas.client_for("manager").post(url, {"action": "explode"}).status_code == 400
