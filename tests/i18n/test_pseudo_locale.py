"""Every page, rendered in a pseudo-language whose catalogue wraps every message in ⟦…⟧, shows
no text outside the wrappers but the users' own data (issue 20, "Done means").

The `zz` catalogue is built at test time from the zh-Hans one (every msgid, wrapped), so a string
missing from the catalogues or never marked shows up bare. The pages are those of every persona
(rater, manager, superuser, someone signed out) over the demo campaign: graded and side-by-side
judging, the campaign's management pages, the reports, the jobs, the model judges and an
invitation. What is left once the wrapped text, the data in the database (names, queries,
documents, guidelines), numbers, dates and punctuation are removed must hold no word.

A second run keeps only each message's placeholders inside the markers ("Aggregate
(%(rule)s)" becomes "⟦%(rule)s⟧"): what a view or a Python sentence fills into a translated
message is then read too, so English passed through a placeholder ("Aggregate (mean)") fails
as bare text does.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po
from django.apps import apps
from django.conf.locale import LANG_INFO
from django.db import models
from django.test import override_settings
from django.urls import reverse

from tests.support.shared_rows import demo_for_module

ROOT = Path(__file__).resolve().parents[2]
ZH = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"
ZZ = {"HTTP_ACCEPT_LANGUAGE": "zz"}
_WRAPPED = re.compile(r"⟦[^⟦⟧]*⟧")
_WORD = re.compile(r"[A-Za-z]{2,}")
# Shown as they are in every language: names of measures and formats, units, the product.
NOT_WORDS = {
    "NDCG", "nDCG", "DCG", "MRR", "ERR", "MAP", "GSB", "CSV", "TSV", "JSON", "JSONL", "TREC",
    "URL", "API", "UTF", "BOM", "ID", "id", "qid", "docno", "kappa", "Cohen", "Fleiss", "GB",
    "MB", "KB", "ms", "UTC",
}  # fmt: skip
# Names and identifiers, whatever the language: people, products, settings, the measure
# judged@k (trec_eval's name, kept as NDCG@k is) and a model judge's label source model:<name>.
NOT_TEXT = re.compile(
    r"Järvelin–Kekäläinen|\blog2\b|\bjudged@(?:\d+|k)\b|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"
    r"|\bmodel:"
)


def _django_catalogues() -> list[Path]:
    """Django's own zh-Hans messages (form errors, password rules, month names), so that they
    are wrapped too: the zh-Hans interface shows them from Django's catalogues."""
    import django

    base = Path(django.__file__).parent
    found = [base / "conf" / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.mo"]
    return found + sorted(base.glob("contrib/*/locale/zh_Hans/LC_MESSAGES/django.mo"))


_PLACEHOLDER = re.compile(r"%(?:\(\w+\))?[-#0 +]*\d*(?:\.\d+)?[sdifgr]|%%|\{\w*\}")


def _placeholders_only(text: str) -> str:
    """A message reduced to its placeholders: "Aggregate (%(rule)s)" -> "%(rule)s"."""
    return " ".join(_PLACEHOLDER.findall(text))


TRUNCATED = "String to return when truncating text"  # truncatechars's message context


def _wrap(catalog, bare: bool = False) -> None:
    for message in catalog:
        if not message.id:
            continue
        texts = message.id if isinstance(message.id, tuple | list) else (message.id,)
        # Django's "%(truncated_text)s…" keeps its ellipsis: the cut word it ends is data.
        cut = "…" if message.context == TRUNCATED else ""
        wrapped = tuple(f"⟦{_placeholders_only(t) + cut if bare else t}⟧" for t in texts)
        message.string = wrapped if isinstance(message.id, tuple | list) else wrapped[0]
        message.flags.discard("fuzzy")


def build_zz(where: Path, bare: bool = False) -> Path:
    """locale/zz/LC_MESSAGES/{django,djangojs}.mo with every message of the project (and of
    Django) wrapped; `bare`: each message's words dropped, only its placeholders kept, so what
    a page fills in (a Python string, a stored value) is all that is left inside the markers."""
    out = where / "zz" / "LC_MESSAGES"
    out.mkdir(parents=True)
    for domain in ("django", "djangojs"):
        with (ZH / f"{domain}.po").open("rb") as source:
            catalog = read_po(source)
        if domain == "django":
            for path in _django_catalogues():
                with path.open("rb") as source:
                    for message in read_mo(source):
                        context = message.context
                        if isinstance(context, bytes):  # babel's reader leaves it undecoded
                            context = context.decode()
                        if message.id and catalog.get(message.id, context) is None:
                            catalog.add(message.id, message.string, context=context)
        catalog.locale = None
        _wrap(catalog, bare)
        with (out / f"{domain}.mo").open("wb") as target:
            write_mo(target, catalog, use_fuzzy=False)
    return where


class _Visible(HTMLParser):
    """The text a user sees or hears: text nodes outside script, style, code and form values
    (a textarea holds the user's text, or a prompt for a model), and the attributes read out
    (title, alt, placeholder, aria-label, a button's value). An element marked lang="en" is
    English on purpose (the help page's documentation) and is left out with what it holds."""

    HIDDEN = ("script", "style", "template", "textarea", "code", "kbd", "pre", "samp", "metadata")
    ATTRIBUTES = ("title", "alt", "placeholder", "aria-label", "aria-description")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hidden = 0
        self.english: list[str] = []  # the open tags from a lang="en" element inwards
        self.text: list[str] = []
        self.attributes: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if self.english or values.get("lang") == "en":
            if tag not in VOID:
                self.english.append(tag)
            return
        if tag in self.HIDDEN:
            self.hidden += 1
        for name in self.ATTRIBUTES:
            if values.get(name):
                self.attributes.append(values[name])
        if tag == "input" and values.get("type") in ("submit", "button") and values.get("value"):
            self.attributes.append(values["value"])

    def handle_endtag(self, tag):
        if self.english:
            if tag in self.english:  # closes it and whatever was left open inside
                del self.english[len(self.english) - 1 - self.english[::-1].index(tag) :]
            return
        if tag in self.HIDDEN and self.hidden:
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden and not self.english:
            self.text.append(data)


# Elements without an end tag.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


def visible_text(page: str) -> list[str]:
    """The page's text (one piece: a message may hold tags) and its attributes."""
    parser = _Visible()
    parser.feed(page)
    return ["\n".join(parser.text), *parser.attributes]


# In a bare message: links and the prompt template's {placeholders} are code, not words.
_BARE_CODE = re.compile(r"https?://\S*|\{\w+\}")


def unwrapped(piece: str, data: list[str], data_words: set[str], bare: bool = False) -> list[str]:
    """The words of `piece` outside the markers and the users' data; `bare`: the markers hold
    only what was filled into messages, and that is read too."""
    text = html.unescape(piece)
    for value in data:  # longest first, so a name inside a longer one goes with it
        if value in text:
            text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", text)
    if bare:
        text = _BARE_CODE.sub(" ", text.replace("⟦", " ").replace("⟧", " "))
    while True:  # nested: ⟦Rate “⟦Good⟧”⟧
        stripped = _WRAPPED.sub(" ", text)
        if stripped == text:
            break
        text = stripped
    text = NOT_TEXT.sub(" ", text)
    # A stored title cut by truncatechars ends in a cut word ("Adjusta…"): data too.
    cut = {w for w in re.findall(r"(\w+)…", text) if any(d.startswith(w) for d in data_words)}
    words = _WORD.findall(text)
    return [w for w in words if w not in NOT_WORDS and w not in data_words and w not in cut]


def context_of(word: str, text: str) -> str:
    at = text.find(word)
    return " ".join(text[max(0, at - 40) : at + 60].split())


def users_data() -> tuple[list[str], set[str]]:
    """Every text value stored by the project's apps (names, queries, documents, guidelines,
    usernames), longest first; and the words of the long ones (rendered as Markdown)."""
    values: set[str] = set()
    for label in ("annotate", "metrics", "llmjudge", "auth"):
        for model in apps.get_app_config(label).get_models():
            fields = [
                f.name
                for f in model._meta.get_fields()
                if isinstance(f, models.CharField | models.TextField) and not f.choices
            ]
            for row in model.objects.values_list(*fields) if fields else ():
                values.update(v.strip() for v in row if isinstance(v, str) and v.strip())
    words = {w for v in values if len(v) > 40 or "\n" in v for w in _WORD.findall(v)}
    values.update(info["name_local"] for info in LANG_INFO.values() if "name_local" in info)
    return sorted(values, key=len, reverse=True), words


@pytest.fixture(scope="module")
def _demo_built(django_db_setup, django_db_blocker) -> Iterator[None]:
    """The demo, built once for both runs (it stores no translated text: it is built in
    English whatever the catalogues) and rolled back after the module
    (tests/support/shared_rows.py); what a run adds (an admin, an invitation) is rolled back by
    its own transaction."""
    with demo_for_module(django_db_blocker):
        yield


@pytest.fixture(params=[False, True], ids=["wrapped", "bare"])
def zz_world(request, _demo_built, tmp_path, settings, monkeypatch):
    """The demo in the pseudo-language; `bare` (the second run) keeps only the placeholders of
    each message, so English a Python string or a variable puts into a translated sentence
    ("Aggregate (mean)") is left bare and found."""
    from metrics.reports.snapshot_charts import forget_drawn

    locales = build_zz(tmp_path, bare=request.param)
    forget_drawn()  # charts drawn in the other run's pseudo-language are not this run's
    # The language picker names each language.
    zz = {"bidi": False, "code": "zz", "name": "Pseudo", "name_local": "⟦Pseudo⟧"}
    monkeypatch.setitem(LANG_INFO, "zz", zz)
    with override_settings(
        LANGUAGES=[*settings.LANGUAGES, ("zz", "⟦Pseudo⟧")],
        LOCALE_PATHS=[*settings.LOCALE_PATHS, locales],
        DEBUG=True,
    ):
        yield request.param


# Excused in scripts/screenshots.py NOT_SCREENS for being no page (a POST, a download, JSON):
# every other excused name is a page this test must visit itself (ONE_ITEM_PAGES).
_NO_PAGE = ("POST only", "a download", "JSON", "JavaScript")


def one_item_pages(campaign) -> list[tuple[str, str, str]]:
    """The pages the screenshot script leaves out though a user sees them: one item or task
    the rater answered, the rater's quizzes (the front page, as the demo requires none), the
    confirmation after a password change."""
    from django.contrib.auth import get_user_model

    from annotate.judging import handles
    from annotate.models import Grade, Verdict

    rater = get_user_model().objects.get(username="rater1")
    comparison = campaign.comparisons.order_by("pk").first()
    graded = Grade.objects.filter(rater=rater, pool_item__campaign=campaign).order_by("pk")
    answered = Verdict.objects.filter(rater=rater, task__comparison=comparison).order_by("pk")
    item = handles.handle_for(rater.pk, handles.GRADED, graded.first().pool_item_id)
    task = handles.handle_for(rater.pk, handles.SXS, answered.first().task_id)
    slug = {"slug": campaign.slug}
    sxs = slug | {"comparison_id": comparison.pk}
    rows = [
        ("annotate:judge_item", slug | {"handle": item}),
        ("annotate:sxs_task", sxs | {"handle": task}),
        ("annotate:quiz", slug),
        ("annotate:sxs_quiz", sxs),
        ("password_change_done", {}),
    ]
    return [("rater1", name, reverse(name, kwargs=kw)) for name, kw in rows]


def pages() -> list[tuple[str, str, str]]:
    """(who, url name, url) of every page, over the demo campaign: the screenshot script's
    screens (scripts/screenshots.py prepare(), whose own test keeps them in step with the URL
    configuration), the manager's again as a superuser, and the pages it does not shoot."""
    from annotate.demo.build import demo_campaign
    from annotate.models import Preferences
    from scripts.screenshots import ADMIN, NOT_SCREENS, prepare

    screens = prepare("en")
    # prepare() gives every account the English interface; here the browser asks for zz.
    Preferences.objects.update(language="")
    # Django's admin is left to Django and the apps it lists (axes, knox, django-tasks have no
    # Chinese catalogue; Django 5.2's lacks a few of its admin's new words).
    out = [(s.persona, s.url_name, s.url) for s in screens if s.url_name != "admin:index"]
    out += [(ADMIN, s.url_name, s.url) for s in screens if s.persona == "manager"]
    out += one_item_pages(demo_campaign("en"))
    pages_excused = {name for name, why in NOT_SCREENS.items() if not why.startswith(_NO_PAGE)}
    assert pages_excused <= {name for _, name, _ in out}, pages_excused
    return out


@pytest.mark.django_db(databases=["default", "jobs"])
def test_every_page_shows_only_wrapped_messages_and_data_in_the_pseudo_language(zz_world):
    from django.contrib.auth import get_user_model
    from django.test import Client

    User = get_user_model()
    User.objects.create_superuser("admin", "admin@example.com", "x-pass-9-long")
    clients: dict[str, Client] = {}

    def client_of(who: str) -> Client:
        if who not in clients:
            clients[who] = Client()
            if who != "anonymous":
                clients[who].force_login(User.objects.get(username=who))
        return clients[who]

    every_page = pages()  # makes an invitation: data too
    data, data_words = users_data()
    found: dict[str, str] = {}
    refused: list[str] = []
    checked = 0
    for who, name, url in every_page:
        response = client_of(who).get(url, **ZZ)
        if response.status_code != 200 or response.headers["Content-Language"] != "zz":
            refused.append(f"{who} {url}: {response.status_code}")
            continue
        checked += 1
        page = response.content.decode()
        assert "⟦" in page, url
        for piece in visible_text(page):
            for word in unwrapped(piece, data, data_words, bare=zz_world):
                found.setdefault(name, f"{who} {url}: {word}: {context_of(word, piece)!r}")
    assert not refused and checked >= 80, refused
    report = "\n".join(f"{key}: {found[key]}" for key in sorted(found))
    assert not found, "Shown outside a translation marker:\n" + report


def test_the_check_finds_bare_text_and_leaves_markers_and_data():
    page = (
        "<h1>⟦Queue⟧ Kettles</h1><p>⟦Rate “⟦Good⟧” for %s⟧</p><button title='Save now'>"
        "⟦Save⟧</button><script>var x = 'code';</script><p>3 / 7 · 12.5%</p>"
    )
    pieces = visible_text(page)
    words = [w for piece in pieces for w in unwrapped(piece, ["Kettles"], set())]
    assert words == ["Save", "now"]
    split = visible_text("<p>⟦Press <kbd>Esc</kbd> to stop⟧</p><p>Left <b>bare</b></p>")
    assert [w for piece in split for w in unwrapped(piece, [], set())] == ["Left", "bare"]
    english = visible_text(
        '<section lang="en"><h2>Docs</h2><p>Read <br>this</p></section><p>After <i>it</i></p>'
    )
    assert [w for piece in english for w in unwrapped(piece, [], set())] == ["After", "it"]
