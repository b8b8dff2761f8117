"""The campaign's document card (issue 21, item 3): what a manager may write, what the rater's
payload then carries, and the settings page that edits it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotate.cards import DEFAULT_CARD, CardPart, card_parse, card_parts
from annotate.models import Campaign, Document, PoolItem, Query
from annotate.selectors_judge import Card, document_shown, item_payload

pytestmark = pytest.mark.django_db

CARD = "image: picture\ntitle\nfields: price, brand\nsnippet"


def test_a_card_is_read_line_by_line_in_its_order():
    parts, problems = card_parse("  Title \n\nimage: picture\nfields: price , brand\nurl\n")
    assert problems == []
    assert parts == [
        CardPart("title"),
        CardPart("image", ("picture",)),
        CardPart("fields", ("price", "brand")),
        CardPart("url"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "titel",  # a typo
        "title\ntitle",  # twice
        "image: a, b",  # one picture
        "image:",  # no field
        "fields: price, <script>",  # not a field name
        "snippet: x",  # the document's own fields take no name
        "fields: " + ", ".join(f"f{i}" for i in range(9)),  # too many
    ],
)
def test_a_card_that_cannot_be_read_says_why_and_shows_the_plain_card(text):
    parts, problems = card_parse(text)
    assert problems and all(p.startswith("Line ") for p in problems)
    assert card_parts(text) == list(DEFAULT_CARD)


def test_an_empty_card_is_the_plain_one():
    assert card_parts("") == [CardPart("title"), CardPart("url"), CardPart("snippet")]


def card_for(campaign, text: str, hosts: str = "img.example.com") -> Card:
    Campaign.objects.filter(pk=campaign.pk).update(card=text, image_hosts=hosts)
    return Card.of(Campaign.objects.get(pk=campaign.pk))


@pytest.mark.parametrize(
    ("picture", "shown"),
    [
        ("/static/p.png", "/static/p.png"),  # this site
        ("https://img.example.com/p.png", "https://img.example.com/p.png"),  # allowed
        ("https://tracker.example.net/p.png", ""),  # any other host
        ("//tracker.example.net/p.png", ""),  # scheme-relative: another host
        ("javascript:alert(1)", ""),
        ("data:image/png;base64,AAAA", ""),
        (42, ""),
    ],
)
def test_a_picture_is_sent_only_from_this_site_or_an_allowed_host(personas, picture, shown):
    card = card_for(personas.campaign, CARD)
    doc = Document(title="t", url="https://x.example/", snippet="s", extra={"picture": picture})
    assert document_shown(doc, card)["image"] == shown


def test_the_table_has_the_named_fields_in_order_and_leaves_out_missing_ones(personas):
    card = card_for(personas.campaign, CARD)
    doc = Document(title="t", extra={"brand": "Acme", "price": 39.5, "secret": "x"})
    assert document_shown(doc, card)["fields"] == [["price", "39.5"], ["brand", "Acme"]]
    assert "secret" not in str(document_shown(doc, card))
    assert document_shown(Document(title="t"), card)["fields"] == []


def test_the_plain_card_sends_nothing_more(personas):
    card = card_for(personas.campaign, "")
    doc = Document(title="t", url="https://x.example/", snippet="s", extra={"picture": "/p.png"})
    assert set(document_shown(doc, card)) == {"title", "url", "snippet"}


def test_the_queue_payload_carries_the_card(personas):
    campaign = personas.campaign
    Campaign.objects.filter(pk=campaign.pk).update(card=CARD)
    query = Query.objects.create(campaign=campaign, external_id="q", text="kettle")
    doc = Document.objects.create(
        campaign=campaign, external_id="d", title="Kettle", extra={"picture": "/p.png", "price": 9}
    )
    PoolItem.objects.create(campaign=campaign, query=query, document=doc)
    client = personas.client_for("rater")
    items = client.get(reverse("annotate:judge_api_queue", kwargs={"slug": "campaign-a"})).json()
    assert items["items"][0]["image"] == "/p.png"
    assert items["items"][0]["fields"] == [["price", "9"]]
    page = client.get(reverse("annotate:judge", kwargs={"slug": "campaign-a"})).content.decode()
    assert 'src="/p.png"' in page and 'loading="lazy"' in page
    item = PoolItem.objects.get()
    assert "image" not in item_payload(item, personas.rater)  # no card: the plain payload


def settings_data(client, url: str) -> dict:
    form = client.get(url).context["form"]
    return {k: v for k, v in form.initial.items() if v is not None and v is not False}


def test_a_manager_sets_the_card_on_the_settings_page(personas):
    Document.objects.create(
        campaign=personas.campaign, external_id="d", extra={"picture": "/p.png", "price": 1}
    )
    url = reverse("annotate:manage_settings", kwargs={"slug": "campaign-a"})
    client = personas.client_for("manager")
    data = settings_data(client, url)
    data["card"] = "titel"
    response = client.post(url, data)
    assert response.status_code == 400 and "titel" in response.content.decode()
    data["card"] = "image: pictrue\ntitle"  # no document has it: a typo
    response = client.post(url, data)
    assert response.status_code == 400 and "pictrue" in response.content.decode()
    data["card"] = "image: picture\ntitle\nfields: price"
    data.pop("highlight_terms")  # an unticked box sends nothing
    assert client.post(url, data).status_code == 302
    campaign = Campaign.objects.get(pk=personas.campaign.pk)
    assert campaign.card == "image: picture\ntitle\nfields: price"
    assert campaign.highlight_terms is False  # the unticked box switched it off
    data["highlight_terms"] = "on"
    assert client.post(url, data).status_code == 302
    assert Campaign.objects.get(pk=personas.campaign.pk).highlight_terms is True
