"""Slugs made from names in any script.

Django's `slugify` keeps only ASCII letters and digits (with `allow_unicode` it would keep the
Chinese characters, which then travel percent-encoded in every link). Names are first
transliterated with anyascii (a maintained Unicode-to-ASCII table: 篮球鞋 becomes LanQiuXie, Поиск
becomes Poisk); a name with nothing left after that (emoji, punctuation) gets a short random
slug. A slug made this way never fails: when it is taken, a number or a random tail is added.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from anyascii import anyascii
from django.utils.text import slugify

# Eight characters of a-z and 2-9 (no 0/o, 1/l): easy to read aloud, 32**8 possibilities.
_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


def random_slug(length: int = 8) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def slug_from_name(name: str, *, max_length: int = 80) -> str:
    """A slug for `name` in any script: transliterated, lower case, hyphens; "" when nothing
    of it survives (the caller then picks a random one)."""
    # anyascii maps one character at a time; it writes an emoji as :name:, which reads as
    # noise in a link, so those are dropped.
    parts = (anyascii(char) for char in name or "")
    text = "".join(" " if _is_emoji_name(part) else part for part in parts)
    return slugify(text)[:max_length].strip("-_")


def _is_emoji_name(text: str) -> bool:
    return len(text) > 2 and text[0] == ":" == text[-1]


def slug_unique(
    name: str, *, taken: Callable[[str], bool], reserved: frozenset[str] = frozenset(),
    max_length: int = 80,
) -> str:  # fmt: skip
    """A slug for `name` that `taken` says is free and is not reserved: the name's own, or with
    -2 ... -9 added, or with a random tail; a random slug when the name gives nothing."""
    base = slug_from_name(name, max_length=max_length)
    if not base:
        base = random_slug()
    candidates = [base] + [f"{base[: max_length - 2]}-{n}" for n in range(2, 10)]
    for candidate in candidates:
        if candidate not in reserved and not taken(candidate):
            return candidate
    while True:  # nine taken in a row: a random tail (32**6 of them) ends it
        candidate = f"{base[: max_length - 7]}-{random_slug(6)}"
        if not taken(candidate):
            return candidate
