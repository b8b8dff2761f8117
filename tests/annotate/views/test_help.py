"""The app serves its own documentation; pages link to it instead of naming the README or a
seed file (#21)."""

from __future__ import annotations

import re

import pytest

from annotate.services.help_docs import SECTIONS

pytestmark = pytest.mark.django_db


def test_the_help_page_has_every_section_with_its_anchor(personas):
    response = personas.client_for("rater").get("/help/")
    assert response.status_code == 200
    html = response.content.decode()
    for anchor in ("importing-your-own-data", "labels-without-raters", "answers-a-rater-means"):
        assert f'id="{anchor}"' in html
    assert html.count('class="card help-doc"') == len(SECTIONS)
    assert "<script" not in html.split("<main")[-1].split("</main>")[0]


# Words that mean nothing to the help page's readers: the project's seed numbers, its source,
# test and benchmark files, the translation tooling. Commands (`python manage.py ...`) stay:
# managers run them.
INTERNAL = re.compile(
    r"[Ss]eed 00\d|\b(?!manage\.py\b)[\w/-]+\.(?:py|po)\b|\.md\b|benchmarks/|tests/"
    r"|makemessages|compilemessages|migration \d|developers -->"
)


def test_the_help_page_speaks_to_users_not_developers(personas):
    html = personas.client_for("manager").get("/help/").content.decode()
    text = re.sub(r"<[^>]+>", " ", html.split("<main")[-1].split("</main>")[0])
    assert INTERNAL.findall(text) == []
    # What users need is still there, commands included.
    assert "python manage.py import_queries" in text
    assert "Which language a page speaks" in text


def test_the_help_page_needs_a_login(client):
    assert client.get("/help/").status_code == 302


def test_manager_pages_name_formats_in_users_words_and_link_the_help(personas):
    manager = personas.client_for("manager")
    slug = personas.campaign.slug
    pages = [f"/campaigns/{slug}/", f"/campaigns/{slug}/import/", f"/reports/{slug}/sources/add/"]
    seen_links = set()
    for url in pages:
        response = manager.get(url)
        if response.status_code != 200:
            continue
        html = response.content.decode()
        text = re.sub(r"<[^>]+>", " ", html)
        assert not re.search(r"[Ss]eed 00\d|README|STATISTICS\.md|DESIGN\.md", text), url
        seen_links |= set(re.findall(r'href="/help/#([a-z-]+)"', html))
    assert {"importing-your-own-data", "labels-without-raters"} <= seen_links


def test_raters_see_no_api_tokens_link_managers_do(personas):
    # A rater has no use for API tokens (#21); the page itself stays reachable by its URL.
    rater = personas.client_for("rater").get("/help/").content.decode()
    manager = personas.client_for("manager").get("/help/").content.decode()
    assert 'data-nav="tokens"' not in rater and 'data-nav="tokens"' in manager
    assert personas.client_for("rater").get("/tokens/").status_code in (200, 302)
