"""The documentation the app serves at /help/: the README's sections for the people who use the
pages (importing, labels without raters, answers, languages, accounts, the model judge),
rendered once per process. Pages link to a section by its anchor instead of saying "see the
README" (#21).

Passages of those sections written for developers (source files, tests, translation steps) sit
between ``<!-- developers -->`` and ``<!-- /developers -->`` in the README: GitHub hides the
markers, and the served page leaves the passages out."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import markdown as md
import nh3
from django.conf import settings
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify

from annotate.services.markdown import ALLOWED_TAGS, URL_SCHEMES

# The README's "## " sections shown, in this order; the rest is for whoever runs the server.
SECTIONS = (
    "Importing your own data",
    "Labels without raters",
    "Answers a rater means",
    "Labels from a language model",
    "Raters' accounts: invitations, password resets, deactivation",
    "Languages: English and Chinese",
    "Evaluating TREC files",
)


_FOR_DEVELOPERS = re.compile(r"<!-- developers -->.*?<!-- /developers -->", re.DOTALL)


@dataclass(frozen=True)
class HelpSection:
    anchor: str
    title: str
    html: SafeString


def _sections(text: str) -> dict[str, str]:
    """The README's "## " sections by title, each with its own subsections."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            current = found.setdefault(line[3:].strip(), [])
            continue
        if not fenced and line.startswith("# "):
            current = None
        if current is not None:
            current.append(line)
    return {title: "\n".join(lines) for title, lines in found.items()}


def _render(text: str) -> SafeString:
    html = md.markdown(text, extensions=["tables", "fenced_code", "sane_lists", "toc"])
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes={
            "a": {"href", "title"},
            "h3": {"id"},
            "h4": {"id"},
            "td": {"align"},
            "th": {"align"},
        },
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer",
    )
    return mark_safe(clean)  # sanitised by nh3 just above


@functools.cache
def help_sections() -> list[HelpSection]:
    text = (Path(settings.BASE_DIR) / "README.md").read_text(encoding="utf-8")
    found = _sections(_FOR_DEVELOPERS.sub("", text))
    return [
        HelpSection(anchor=slugify(title), title=title, html=_render(found[title]))
        for title in SECTIONS
        if title in found
    ]
