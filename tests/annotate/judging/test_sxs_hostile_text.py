"""Side-by-side work with hostile or oversized stored text: a verdict's reason that a
spreadsheet would run is neutralised in the verdict export, and text stored above the input
limits (before they existed) reaches the rater's screen clamped, on both sides."""

from __future__ import annotations

import csv
import io
import json

from django.test import Client
from django.urls import reverse

from annotate import inputs
from annotate.models import Document, Query, Verdict
from tests.annotate.sxs_helpers import distinct_lists, make_comparison

HOSTILE_REASONS = ["=1+1", "+1+cmd|' /C calc'!A0", "@SUM(A1)", "-2+3", "\t=1", "\r=1"]


def _rater_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _urls(comparison) -> tuple[str, str]:
    kwargs = {"slug": comparison.campaign.slug, "comparison_id": comparison.pk}
    return (
        reverse("annotate:sxs_api_queue", kwargs=kwargs),
        reverse("annotate:sxs_api", kwargs=kwargs),
    )


def test_a_hostile_verdict_reason_is_neutralised_in_the_verdict_export(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(len(HOSTILE_REASONS)))
    client = _rater_client(personas.rater)
    queue, answer = _urls(comparison)
    for reason in HOSTILE_REASONS:  # through the page's own endpoint, as a rater types it
        handle = client.get(queue).json()["tasks"][0]["id"]
        body = {"task": handle, "chosen": "left", "strength": 1, "reason": reason}
        reply = client.post(answer, json.dumps(body), content_type="application/json")
        assert reply.status_code == 200, reply.content
    url = reverse("annotate:export_verdicts", kwargs={"slug": "campaign-a"})
    response = personas.client_for("manager").get(url)
    raw = b"".join(response.streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(raw)))
    # The reason is stored stripped ("\t=1" as "=1"): each still starts a formula.
    stored = sorted(Verdict.objects.values_list("reason", flat=True))
    assert stored == sorted(r.strip() for r in HOSTILE_REASONS)
    assert sorted(row["reason"] for row in rows) == ["'" + r for r in stored]
    assert {row["strength"] for row in rows} == {"1"}


def test_text_stored_above_the_limits_reaches_the_sxs_screen_clamped(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(1, depth=2))
    query = Query.objects.get(campaign=personas.campaign, external_id="q0")
    long_text = "x" * (inputs.limit("query_text") + 500)
    long_intent = "i" * (inputs.limit("intent") + 10)
    Query.objects.filter(pk=query.pk).update(text=long_text, description=long_intent)
    long_title = "t" * (inputs.limit("title") + 1)
    long_snippet = "s" * (inputs.limit("snippet") + 7)
    Document.objects.filter(campaign=personas.campaign).update(
        title=long_title, snippet=long_snippet
    )
    queue, _answer = _urls(comparison)
    task = _rater_client(personas.rater).get(queue).json()["tasks"][0]
    assert task["query"] == "x" * inputs.limit("query_text") + "…"
    assert task["description"] == "i" * inputs.limit("intent") + "…"
    shown = task["left"] + task["right"]
    assert len(shown) == 4  # depth 2 on each side
    for doc in shown:
        assert doc["title"] == "t" * inputs.limit("title") + "…"
        assert doc["snippet"] == "s" * inputs.limit("snippet") + "…"
    assert Query.objects.get(pk=query.pk).text == long_text  # stored as it was
