"""Untrusted input, checked in one place: the JSON parser that the API, the judging pages and
the JSONL imports share, the text checks every import applies, and the size limits.

A value the database or a later page cannot hold must be refused here, with a message that
names it, rather than fail as a 500 later: PostgreSQL refuses NUL in text and NaN or infinity
in JSON; a lone surrogate cannot be encoded as UTF-8; Python refuses to turn more than 4,300
digits into an int; a deeply nested array exhausts the recursion of whatever walks it next.

The limits are settings (``INPUT_LIMITS``, defaults below), so a deployment can raise one.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

DEFAULT_LIMITS: dict[str, int] = {
    "query_text": 2_000,
    "intent": 5_000,
    "title": 1_000,
    "url": 2_048,
    "snippet": 20_000,
    "extra_keys": 100,
    "extra_bytes": 64 * 1024,
    "name": 200,
    # A campaign's own text, typed by a manager (form, API, admin): the guidelines go to every
    # rater's judging page, the image hosts into every judging page's CSP header.
    "campaign_description": 5_000,
    "guidelines": 100_000,
    "image_hosts": 2_000,
    # A model judge's prompt template and its list of query ids (llmjudge).
    "prompt_template": 50_000,
    "query_ids": 200_000,
    "upload_bytes": 1024**3,
    # One line of an imported file: far above any valid record (a document with a 20,000
    # character snippet and 64 KB of extra fields), so memory stays bounded for any input.
    "line_bytes": 1024 * 1024,
    # JSON nesting, and the digits of a JSON integer (Python's own cap is 4,300).
    "json_depth": 64,
    "json_int_digits": 100,
    # Grades imported as given (qrels --any-grade): far beyond any scale, far below the float
    # overflow of the exponential gain 2^grade - 1 (2^1024).
    "grade_abs": 1_000,
}


def limit(name: str) -> int:
    """The configured limit ``name`` (``settings.INPUT_LIMITS``, else the default)."""
    return int(getattr(settings, "INPUT_LIMITS", {}).get(name, DEFAULT_LIMITS[name]))


class BadInput(ValueError):
    """Input refused; ``str(exc)`` says why, for the person who sent it."""


# NUL (PostgreSQL cannot store it) and UTF-16 surrogates (no UTF-8 encoding exists for a lone
# one; Python strings from json.loads may hold them).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
# C0 and C1 control characters and DEL, for names that end up in headers, filenames and charts.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def text_problem(
    value: str, *, max_length: int | None = None, single_line: bool = False
) -> str | None:
    """Why ``value`` cannot be stored, or None. ``single_line`` refuses every control
    character (tab, CR and LF included), as a name needs."""
    found = (_CONTROL if single_line else _UNSTORABLE).search(value)
    if found is not None:
        char = found.group()
        return _("contains the character %(code)s, which is not allowed here") % {
            "code": f"U+{ord(char):04X}"
        }
    if max_length is not None and len(value) > max_length:
        return _("is %(n)s characters long; the limit is %(max)s") % {
            "n": f"{len(value):,}",
            "max": f"{max_length:,}",
        }
    return None


def clamp(text: str, limit_name: str) -> str:
    """``text`` cut to its limit, with an ellipsis: text stored before a limit existed (or
    while it was higher) stays in the database but is shown, and sent to raters, clamped."""
    maximum = limit(limit_name)
    return text if len(text) <= maximum else text[:maximum] + "…"


def check_name(value: str, what: str) -> str:
    """A name (system, run, label source, comparison): 1 to ``name`` characters, one line."""
    problem = text_problem(value, max_length=limit("name"), single_line=True)
    if problem is None and not value.strip():
        problem = "is empty"
    if problem is not None:
        raise BadInput(f"{what} {_clip(value)!r} {problem}")
    return value


def _clip(value: str, length: int = 60) -> str:
    return value if len(value) <= length else value[:length] + "…"


def _refuse_constant(name: str) -> Any:
    raise BadInput(_("%(name)s is not allowed in JSON (use null or a number)") % {"name": name})


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadInput(_("the number %(number)s is too large") % {"number": _clip(text, 30)})
    return value


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > limit("json_int_digits"):
        raise BadInput(_("a number of %(n)s digits is too large") % {"n": format(len(text), ",")})
    return int(text)


def loads(data: str | bytes | bytearray) -> Any:
    """``json.loads`` that refuses what cannot be stored or walked safely: NaN and infinities,
    numbers that overflow, integers of more than ``json_int_digits`` digits, nesting deeper
    than ``json_depth``, and text (keys included) holding NUL or a lone surrogate. Raises
    :class:`BadInput` with a message fit to show."""
    try:
        value = json.loads(
            data,
            parse_constant=_refuse_constant,
            parse_float=_parse_float,
            parse_int=_parse_int,
        )
    except BadInput:
        raise
    except RecursionError:
        raise BadInput(
            _("JSON nested more than %(limit)s levels deep") % {"limit": limit("json_depth")}
        ) from None
    except json.JSONDecodeError as exc:
        # Some of json's messages end in "at" already ("Unterminated string starting at").
        if exc.msg.endswith(" at"):
            why = _("not valid JSON (%(msg)s column %(colno)s)")
        else:
            why = _("not valid JSON (%(msg)s at column %(colno)s)")
        raise BadInput(why % {"msg": exc.msg, "colno": exc.colno}) from None
    except UnicodeDecodeError:
        raise BadInput(_("not valid UTF-8")) from None
    except ValueError as exc:  # e.g. a surrogate in bytes json.loads had to decode
        raise BadInput(_("not valid JSON (%(exc)s)") % {"exc": exc}) from None
    check_tree(value)
    return value


def check_tree(value: Any) -> None:
    """Refuse nesting deeper than ``json_depth`` and unstorable text anywhere in a parsed JSON
    value. Iterative, so the check itself cannot overflow the stack."""
    max_depth = limit("json_depth")
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_string(item)
        elif isinstance(item, dict | list):
            if depth > max_depth:
                raise BadInput(
                    _("JSON nested more than %(max_depth)s levels deep") % {"max_depth": max_depth}
                )
            if isinstance(item, dict):
                for key, child in item.items():
                    _check_string(key)
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)


def _check_string(text: str) -> None:
    found = _UNSTORABLE.search(text)
    if found is not None:
        what = "NUL (\\u0000)" if found.group() == "\x00" else "a lone surrogate (\\ud800-\\udfff)"
        raise BadInput(_("text may not contain %(what)s") % {"what": what})
