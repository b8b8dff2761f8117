"""Every string users see is marked for translation, and the zh-Hans catalogue translates
every marked string (none empty, none fuzzy)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.utils.translation.template import templatize

from tests.i18n.po import Entry, read_po
from tests.i18n.scan import findings, template_findings

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
SCRIPTS = ROOT / "static" / "js"
ZH = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"

# The judging screens' and jobs page's scripts: their messages go through gettext.
USER_FACING_SCRIPTS = (
    "judge-core.js",
    "judge-card.js",
    "judge.js",
    "sxs.js",
    "jobs.js",
    "judge-outbox.js",
    "judge-progress.js",
    "judge-conflicts.js",
)


def test_no_template_shows_text_outside_a_translation_marker():
    found = template_findings(TEMPLATES)
    assert not found, "Mark these for translation:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("<p>Hello there</p>", ["Hello there"]),
        ('<input placeholder="Your name">', ["Your name"]),
        ('{% include "x.html" with title="Some title" %}', ['"Some title"']),
        ('<p>{% translate "Hello" %} {{ name }}</p>', []),
        ("<p>{% blocktranslate %}Hi {{ name }}{% endblocktranslate %}</p>", []),
        ("<kbd>S</kbd> · <td>A</td><td>B</td>", []),  # single letters: keys, not words
        ("<script>const words = 'not shown';</script>{# a comment #}", []),
    ],
)
def test_the_scan_finds_unmarked_text_and_only_that(source, expected):
    assert [piece for _line, piece in findings(source)] == expected


# A call's first argument when it is a string literal in single or double quotes.
# (templatize writes u'...'.)
_FIRST_ARGUMENT = r"""\(\s*u?('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*[,)]"""


def _string_literals(code: str, function: str) -> list[str]:
    pattern = re.compile(r"\b" + function + _FIRST_ARGUMENT)
    return [ast.literal_eval(match.group(1)) for match in pattern.finditer(code)]


def _template_messages() -> set[str]:
    """The msgids Django's makemessages takes from the templates (the same templatize)."""
    messages = set()
    for path in list(TEMPLATES.rglob("*.html")) + list(TEMPLATES.rglob("*.txt")):
        code = templatize(path.read_text(encoding="utf-8"), origin=str(path))
        messages.update(_string_literals(code, "gettext"))
        messages.update(_string_literals(code, "ngettext"))
        messages.update(_string_literals(code, "pgettext"))
    return messages


def _script_messages() -> set[str]:
    messages = set()
    for name in USER_FACING_SCRIPTS:
        code = (SCRIPTS / name).read_text(encoding="utf-8")
        messages.update(_string_literals(code, "gettext"))
        messages.update(_string_literals(code, "ngettext"))
    return messages


def _untranslated(entries: list[Entry]) -> list[str]:
    return [
        f"line {e.line}: {e.msgid!r}" + (" (fuzzy)" if e.fuzzy else " (empty)")
        for e in entries
        if e.msgid and (e.fuzzy or not all(e.msgstr))
    ]


@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_the_zh_hans_catalogue_has_no_untranslated_or_fuzzy_entry(domain):
    bad = _untranslated(read_po(ZH / f"{domain}.po"))
    assert not bad, f"zh-Hans {domain}.po:\n" + "\n".join(bad)


def test_every_marked_string_is_in_the_zh_hans_catalogue():
    """A string marked after the last makemessages is missing from the catalogue: shown in
    English. (makemessages -l zh_Hans, then translate: README, "Languages".)"""
    known = {e.msgid for e in read_po(ZH / "django.po")}
    marked = _template_messages()
    assert len(marked) > 500 and len(_script_messages()) > 40  # the extraction works
    missing = sorted(marked - known)
    assert not missing, "Not in django.po (run makemessages):\n" + "\n".join(missing)
    known_js = {e.msgid for e in read_po(ZH / "djangojs.po")}
    missing_js = sorted(_script_messages() - known_js)
    assert not missing_js, "Not in djangojs.po (makemessages -d djangojs):\n" + "\n".join(
        missing_js
    )


def test_the_checks_can_fail(tmp_path):
    po = tmp_path / "bad.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: zh_Hans\\n"\n\n'
        'msgid "Skip"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Good"\nmsgstr "好"\n\n'
        'msgid "one"\nmsgid_plural "many"\nmsgstr[0] "一"\n',
        encoding="utf-8",
    )
    bad = _untranslated(read_po(po))
    assert len(bad) == 2 and "'Skip' (empty)" in bad[0] and "'Good' (fuzzy)" in bad[1]
    code = templatize(
        '{% load i18n %}{% translate "Queue" %}{% blocktranslate %}A {{ b }}'
        "{% endblocktranslate %}",
        origin="x.html",
    )
    assert set(_string_literals(code, "gettext")) == {"Queue", "A %(b)s"}


# A script's string literal: double or single quotes (template literals are checked apart).
_JS_LITERAL = r"(?:\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
_JS_COMMENT = re.compile(r"(?<![:\"'])//[^\n]*|/\*.*?\*/", re.S)
_JS_MARKED = re.compile(
    r"\bn?gettext\(\s*" + _JS_LITERAL + r"(?:\s*\+\s*" + _JS_LITERAL + r")*"
    r"(?:\s*,\s*" + _JS_LITERAL + r"(?:\s*\+\s*" + _JS_LITERAL + r")*)?"
)
# Two words with a space between: a sentence; unless it is a CSS selector or a keyword list.
_JS_NOT_TEXT = {"use strict", "noopener noreferrer"}


def script_sentences(code: str) -> list[str]:
    """String literals of `code` that read as words for people and that gettext does not wrap."""
    code = _JS_MARKED.sub("gettext(", _JS_COMMENT.sub("", code))
    found = []
    for match in re.finditer(_JS_LITERAL + r"|`(?:[^`\\]|\\.)*`", code):
        text = match.group(0)[1:-1]
        plain = re.sub(r"\$\{[^}]*\}", " ", text)  # a template literal's expressions
        if text in _JS_NOT_TEXT or " " not in plain.strip():
            continue
        if re.search(r"(^|\s)[.#\[]|\[data-|\[aria-|:not\(", plain):
            continue  # a selector
        if re.fullmatch(r"\([a-z-]+:\s*[a-z0-9-]+\)", plain.strip()):
            continue  # a media query, e.g. (prefers-reduced-motion: reduce)
        if len(re.findall(r"[A-Za-z]{2,}", plain)) >= 2:
            found.append(text)
    return found


# Where a script puts text in front of people: a one-word literal there ("Saved") is a message
# too, though a one-word literal elsewhere is mostly code ("click", "POST", "Enter").
_JS_ANY_LITERAL = _JS_LITERAL[:-1] + r"|`(?:[^`\\]|\\.)*`)"
_JS_SINK = re.compile(
    r"(?:\.(?:textContent|innerText|title|placeholder|ariaLabel|alt)\s*=(?!=)|"
    r"setAttribute\(\s*[\"'](?:aria-label|title|placeholder|alt)[\"']\s*,|"
    r"\b(?:alert|confirm|prompt|createTextNode)\()([^;\n]*)"
)
# Operands of a comparison and keys in brackets are code: side === "right", labels["good"].
_JS_CODE_OPERAND = re.compile(
    r"(?:===?|!==?)\s*" + _JS_ANY_LITERAL + "|" + _JS_ANY_LITERAL + r"\s*(?:===?|!==?)"
    r"|\[\s*" + _JS_ANY_LITERAL + r"\s*\]"
)


def script_words_shown(code: str) -> list[str]:
    """Unwrapped literals with a word in them, even one, put where the page shows them."""
    code = _JS_MARKED.sub("gettext(", _JS_COMMENT.sub("", code))
    found = []
    for sink in _JS_SINK.finditer(code):
        expression = _JS_CODE_OPERAND.sub(" ", sink.group(1))
        for literal in re.findall(_JS_ANY_LITERAL, expression):
            if re.search(r"[A-Za-z]{2,}", re.sub(r"\$\{[^}]*\}", " ", literal)):
                found.append(literal[1:-1])
    return found


def test_no_script_shows_words_outside_gettext():
    found = [
        f"{path.name}: {text}"
        for path in sorted(SCRIPTS.glob("*.js"))
        for scan in (script_sentences, script_words_shown)
        for text in scan(path.read_text(encoding="utf-8"))
    ]
    assert not found, "Wrap these in gettext():\n" + "\n".join(found)


def test_the_script_scan_finds_bare_words_and_only_those():
    code = (
        '"use strict";\nel.textContent = "Saved just now";\n'
        'el.title = gettext("All grades saved");\n'
        "el.textContent = interpolate(gettext('%(n)s of %(m)s' + ' done'), {n: 1});\n"
        'document.querySelector(".sxs-result .is-shared");\n// a comment with words\n'
        "el.textContent = `Left ${side} better`;\n"
        'matchMedia("(prefers-reduced-motion: reduce)");\n'
    )
    assert script_sentences(code) == ["Saved just now", "Left ${side} better"]


def test_the_script_scan_finds_one_bare_word_where_it_is_shown():
    code = (
        'el.textContent = "Saved";\nbtn.setAttribute("aria-label", "Close");\n'
        "el.title = done ? gettext('Done') : 'Pending';\n"
        'el.textContent = side === "left" ? gettext("Left") : gettext("Right");\n'
        'el.textContent = names["good"]; el.addEventListener("click", go); el.textContent = "";\n'
    )
    assert script_words_shown(code) == ["Saved", "Close", "Pending"]
