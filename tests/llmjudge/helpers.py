"""A campaign whose documents tell the fake model (tests/support/fake_openai.py) what to
answer, and a judge pointed at the fake server."""

from __future__ import annotations

from annotate.models import Campaign, Document, PoolItem, Query
from llmjudge.models import ModelJudge
from llmjudge.prompt import DEFAULT_TEMPLATE

KEY_ENV = "LLMJUDGE_KEY_TEST"
KEY = "sk-test-not-a-real-key"


def make_items(campaign: Campaign, snippets: dict[tuple[str, str], str]) -> list[PoolItem]:
    """One pool item per (query id, document id), the document's snippet as given."""
    items = []
    for (qid, did), snippet in snippets.items():
        query = Query.objects.get_or_create(
            campaign=campaign, external_id=qid, defaults={"text": f"text of {qid}"}
        )[0]
        doc = Document.objects.get_or_create(
            campaign=campaign, external_id=did, defaults={"title": f"title {did}"}
        )[0]
        doc.snippet = snippet
        doc.save(update_fields=["snippet"])
        items.append(
            PoolItem.objects.get_or_create(campaign=campaign, query=query, document=doc)[0]
        )
    return items


def make_judge(campaign: Campaign, base_url: str, **fields) -> ModelJudge:
    values = {
        "name": "fake", "base_url": base_url, "model": "fake-1", "api_key_env": KEY_ENV,
        "template": DEFAULT_TEMPLATE, "requests_per_minute": 60_000, "max_concurrency": 4,
        "timeout_seconds": 10.0,
    } | fields  # fmt: skip
    return ModelJudge.objects.create(campaign=campaign, **values)
