"""Markdown written by managers (campaign guidelines), rendered into HTML that is safe to show.

Python-Markdown passes raw HTML through untouched, so its output is never trusted: nh3 (an
allow-list sanitiser) then keeps only the tags and attributes that plain documents need, and
only http(s)/mailto links. Anything else, such as a <script>, an onclick or a javascript: URL,
is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

import markdown as md
import nh3
from django.http import HttpRequest
from django.utils.safestring import SafeString, mark_safe

from annotate.models import Campaign

# No nl2br: guidelines are often pasted hard-wrapped, and a line break inside a paragraph is a
# space, as Markdown has it (two trailing spaces still break the line).
EXTENSIONS = ["tables", "fenced_code", "sane_lists"]
# Chinese, Japanese and Korean text has no spaces between words: a wrapped line joins its
# neighbour directly, not with the space a line break would become.
_CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\u3000-\u303f"
_CJK_WRAP = re.compile(f"(?<=[{_CJK}])[ \t]*\n[ \t]*(?=[{_CJK}])")


def _join_cjk_wraps(text: str) -> str:
    """Remove the line breaks between two CJK characters, outside fenced code."""
    parts = re.split(r"(^(?:```|~~~).*?^(?:```|~~~)[^\n]*$)", text, flags=re.S | re.M)
    return "".join(p if i % 2 else _CJK_WRAP.sub("", p) for i, p in enumerate(parts))


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


def render_markdown(
    text: str, *, links_in_new_tab: bool = True, image_hosts: Sequence[str] = ()
) -> SafeString:
    """Render Markdown to sanitised HTML, ready for a template.

    Links open in a new tab by default: a rater reading the guidelines must not lose the
    judging screen by following one. An image keeps its source only if it is on this site
    (a path such as /static/...) or on one of ``image_hosts``: an image elsewhere would tell
    its host who reads the guidelines, and when (a tracking pixel).
    """
    if not text or not text.strip():
        return mark_safe("")
    html = md.markdown(_join_cjk_wraps(text), extensions=EXTENSIONS, output_format="html")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        clean_content_tags=CLEAN_CONTENT_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer",
        set_tag_attribute_values={"a": {"target": "_blank"}} if links_in_new_tab else None,
        strip_comments=True,
        attribute_filter=_image_filter(frozenset(h.lower() for h in image_hosts)),
    )
    return mark_safe(clean)  # sanitised by nh3 just above


def _image_filter(hosts: frozenset[str]):
    def keep(tag: str, attribute: str, value: str) -> str | None:
        if tag == "img" and attribute == "src" and not image_allowed(value, hosts):
            return None
        return value

    return keep


def image_allowed(src: str, hosts: frozenset[str]) -> bool:
    """A path on this site, or an http(s) URL on one of ``hosts`` (host[:port])."""
    src = src.strip()
    if src.startswith("/") and not src.startswith("//") and "\\" not in src:
        return True
    parts = urlsplit(src)
    return parts.scheme in ("http", "https") and parts.netloc.lower() in hosts


def guidelines_html(request: HttpRequest, campaign: Campaign, text: str | None = None):
    """A campaign's guidelines (or ``text``, a preview) as HTML for a page, with the images the
    campaign allows; the page's Content-Security-Policy then lets those hosts' images in
    (config.csp reads ``request.csp_image_hosts``), and no others."""
    hosts = campaign.image_host_list
    request.csp_image_hosts = hosts  # type: ignore[attr-defined]
    source = campaign.guidelines if text is None else text
    return render_markdown(source, image_hosts=hosts)
