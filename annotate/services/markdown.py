"""Markdown written by managers (campaign guidelines), rendered into HTML that is safe to show.

Python-Markdown passes raw HTML through untouched, so its output is never trusted: nh3 (an
allow-list sanitiser) then keeps only the tags and attributes that plain documents need, and
only http(s)/mailto links. Anything else, such as a <script>, an onclick or a javascript: URL,
is dropped.
"""

from __future__ import annotations

import markdown as md
import nh3
from django.utils.safestring import SafeString, mark_safe

EXTENSIONS = ["tables", "fenced_code", "sane_lists", "nl2br"]

ALLOWED_TAGS = {
    "a",
    "abbr",
    "blockquote",
    "br",
    "code",
    "dd",
    "del",
    "dl",
    "dt",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "img",
    "kbd",
    "li",
    "mark",
    "ol",
    "p",
    "pre",
    "s",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title"},
    "td": {"align"},
    "th": {"align"},
}
URL_SCHEMES = {"http", "https", "mailto"}
# Dropped together with their content, not just unwrapped: their text is never meant to be read.
CLEAN_CONTENT_TAGS = {"script", "style", "template", "iframe", "object", "noscript"}


def render_markdown(text: str, *, links_in_new_tab: bool = True) -> SafeString:
    """Render Markdown to sanitised HTML, ready for a template.

    Links open in a new tab by default: a rater reading the guidelines must not lose the
    judging screen by following one.
    """
    if not text or not text.strip():
        return mark_safe("")
    html = md.markdown(text, extensions=EXTENSIONS, output_format="html")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        clean_content_tags=CLEAN_CONTENT_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer",
        set_tag_attribute_values={"a": {"target": "_blank"}} if links_in_new_tab else None,
        strip_comments=True,
    )
    return mark_safe(clean)  # sanitised by nh3 just above
