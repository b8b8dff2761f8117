"""The document card a campaign shows raters (issue 21): which parts, in which order.

A manager writes it as lines on the campaign's settings page, one part per line:

    title
    image: picture_url
    snippet
    fields: price, brand

``title``, ``url`` and ``snippet`` are the document's own fields; ``image: KEY`` shows the
picture whose address is the document's extra field KEY; ``fields: K1, K2`` shows those extra
fields as a small table. Empty text means the plain card (title, URL, snippet). The card is
the same for every document of the campaign, on both judging screens and both sides, so it
tells a rater nothing about systems or ranks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

PLAIN = ("title", "url", "snippet")
MAX_FIELDS = 8
MAX_VALUE = 200  # characters of one extra field shown in the table
_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class CardPart:
    """One line of the card: kind is title, url, snippet, image or fields; keys are the
    extra fields it reads (one for an image, several for a table)."""

    kind: str
    keys: tuple[str, ...] = ()


DEFAULT_CARD: tuple[CardPart, ...] = tuple(CardPart(kind) for kind in PLAIN)


def card_parse(text: str) -> tuple[list[CardPart], list[str]]:
    """The card's parts and what is wrong with the text (one message per problem)."""
    parts: list[CardPart] = []
    problems: list[str] = []
    for number, raw in enumerate((text or "").splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        part, problem = _part(line)
        if problem:
            problems.append(_("Line %(n)s: %(why)s") % {"n": number, "why": problem})
        elif any(p.kind == part.kind for p in parts):
            problems.append(
                _("Line %(n)s: “%(kind)s” is already on the card.")
                % {"n": number, "kind": part.kind}
            )
        else:
            parts.append(part)
    return parts, problems


def _part(line: str) -> tuple[CardPart, str]:
    name, colon, rest = line.partition(":")
    kind = name.strip().lower()
    if kind in PLAIN and not colon:
        return CardPart(kind), ""
    if kind in ("image", "fields") and colon:
        keys = tuple(k.strip() for k in rest.split(",") if k.strip())
        bad = [k for k in keys if not _KEY.fullmatch(k)]
        if bad:
            return CardPart(kind), _("“%(key)s” is not a field name (letters, digits, _ . -).") % {
                "key": bad[0]
            }
        if not keys:
            return CardPart(kind), _("“%(kind)s:” needs a field name.") % {"kind": kind}
        if kind == "image" and len(keys) > 1:
            return CardPart(kind), _("an image is read from one field.")
        if len(keys) > MAX_FIELDS:
            return CardPart(kind), _("at most %(n)s fields.") % {"n": MAX_FIELDS}
        return CardPart(kind, keys), ""
    return CardPart(kind), _(
        "“%(line)s” is none of title, url, snippet, “image: FIELD”, “fields: FIELD, FIELD”."
    ) % {"line": line[:60]}


def card_parts(text: str) -> list[CardPart]:
    """The parts to show: the plain card when the text is empty (or, stored before a check
    existed, unreadable)."""
    parts, problems = card_parse(text)
    return list(DEFAULT_CARD) if problems or not parts else parts


def extra_keys(parts: Sequence[CardPart]) -> list[str]:
    """The extra fields a card reads, in order."""
    return [key for part in parts for key in part.keys]


def card_extras(parts: Sequence[CardPart], extra: Mapping | None, image_ok) -> dict[str, object]:
    """What a document's card adds to the payload from its extra fields: ``image``, the
    picture's address when it passes ``image_ok`` (else empty: not shown), and ``fields``,
    [name, value] rows of the table, leaving out fields the document lacks."""
    extra = extra if isinstance(extra, Mapping) else {}
    out: dict[str, object] = {}
    for part in parts:
        if part.kind == "image":
            src = extra.get(part.keys[0])
            out["image"] = src.strip() if isinstance(src, str) and image_ok(src) else ""
        elif part.kind == "fields":
            out["fields"] = [
                [key, _shown_value(extra[key])]
                for key in part.keys
                if extra.get(key) not in (None, "", [], {})
            ]
    return out


def _shown_value(value: object) -> str:
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value)
    text = str(value)
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE] + "…"


def validate_card(text: str) -> None:
    """The model field's check: every line must be a part (django ValidationError)."""
    from django.core.exceptions import ValidationError

    _parts, problems = card_parse(text)
    if problems:
        raise ValidationError(problems)
