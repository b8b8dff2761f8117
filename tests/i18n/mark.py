"""Wraps the visible English of Django templates in translation markers, wording unchanged:
`python -m tests.i18n.mark templates/some/page.html ...` (then review the diff, run
`makemessages` and translate). Used to mark every template for issue 20; after a merge brings
new pages, the scan in test_catalogue.py names what is left, and this marks most of it.

A run of text, variables and inline tags (kbd, code, strong...) becomes one message:
{% translate "..." %} when it is plain text, else {% blocktranslate %} with each dotted or
filtered variable bound by `with` (a |pluralize binding becomes a `count` form). Attributes
users read (title, placeholder, aria-label, alt) get {% translate %}. What it cannot do well it
leaves for a person: sentences cut by {% if %}, attributes holding variables.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

TOKEN = re.compile(
    r"({%\s*comment\s*%}.*?{%\s*endcomment\s*%}"
    r"|{%\s*blocktrans(?:late)?\b.*?{%\s*endblocktrans(?:late)?\s*%}"
    r"|{%\s*verbatim\s*%}.*?{%\s*endverbatim\s*%}"
    r"|<script\b.*?</script>|<style\b.*?</style>|{%.*?%}|{{.*?}}|{#.*?#}|<!--.*?-->|<[^>]*>)",
    re.S,
)
INLINE = {"kbd", "code", "strong", "em", "b", "i", "abbr", "small", "q", "cite", "var", "samp"}
LETTERS = re.compile(r"[A-Za-z]{2,}")
ATTRS = re.compile(r'(\s(?:title|placeholder|aria-label|alt)=)"([^"{]*)"')
TAG_NAME = re.compile(r"</?\s*([a-zA-Z0-9]+)")
Token = tuple[str, str]


def _kind(token: str) -> str:
    if token.startswith("{{"):
        return "var"
    if token.startswith(("{%", "{#", "<!--", "<script", "<style")):
        return "break"
    if token.startswith("<"):
        name = TAG_NAME.match(token)
        inline = name and name.group(1).lower() in INLINE and "{" not in token
        return "inline" if inline else "html"
    return "text"


def _balanced(tokens: list[Token]) -> bool:
    stack: list[str] = []
    for kind, token in tokens:
        if kind != "inline":
            continue
        name = TAG_NAME.match(token).group(1).lower()  # type: ignore[union-attr]
        if not token.startswith("</"):
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack


def _quoted(text: str) -> str:
    quote = "'" if '"' in text else '"'
    return f"{quote}{text}{quote}"


def _variable_name(expression: str, used: dict[str, str]) -> str:
    base = re.sub(r"\W", "_", expression.split("|")[0].strip().split(".")[-1]) or "value"
    base = "plural" if "|pluralize" in expression else base
    base = base if base[0].isalpha() else f"v_{base}"
    name, n = base, 2
    while name in used and used[name] != expression:
        name, n = f"{base}{n}", n + 1
    used[name] = expression
    return name


def _message(tokens: list[Token]) -> str:
    text = "".join(token for _kind, token in tokens)
    core = text.strip()
    lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
    if not any(kind == "text" and LETTERS.search(token) for kind, token in tokens):
        return text
    plain = all(kind == "text" for kind, _token in tokens)
    if plain and "\n" not in core and "&" not in core and not ('"' in core and "'" in core):
        return f"{lead}{{% translate {_quoted(core)} %}}{trail}"
    used: dict[str, str] = {}
    body = []
    for kind, token in tokens:
        expression = token[2:-2].strip() if kind == "var" else ""
        if kind != "var":
            body.append(token)
        elif re.fullmatch(r"[A-Za-z_]\w*", expression):
            body.append("{{ " + expression + " }}")
        else:
            body.append("{{ " + _variable_name(expression, used) + " }}")
    inner = "".join(body).strip()
    bound = " ".join(f"{name}={expression}" for name, expression in used.items())
    options = (f" with {bound}" if bound else "") + (" trimmed" if "\n" in inner else "")
    return f"{lead}{{% blocktranslate{options} %}}{inner}{{% endblocktranslate %}}{trail}"


def _flush(unit: list[Token], out: list[str]) -> None:
    if not unit:
        return
    if _balanced(unit):
        out.append(_message(unit))
        return
    part: list[Token] = []
    for kind, token in unit:  # unbalanced inline tags: each run of text on its own
        if kind == "inline":
            out.extend([_message(part) if part else "", token])
            part = []
        else:
            part.append((kind, token))
    if part:
        out.append(_message(part))


def _attribute(match: re.Match[str]) -> str:
    if not LETTERS.search(match.group(2)):
        return match.group(0)
    return f'{match.group(1)}"{{% translate {_quoted(match.group(2))} %}}"'


def mark(source: str) -> str:
    """The template with its visible text wrapped, and {% load i18n %} when it needs it."""
    out: list[str] = []
    unit: list[Token] = []
    for token in TOKEN.split(source):
        if not token:
            continue
        kind = _kind(token)
        if kind in ("text", "var", "inline"):
            unit.append((kind, token))
            continue
        _flush(unit, out)
        unit = []
        out.append(ATTRS.sub(_attribute, token) if kind == "html" else token)
    _flush(unit, out)
    marked = plural_counts("".join(out))
    if marked != source and not re.search(r"{%\s*load[^%]*\bi18n\b", marked):
        extends = re.match(r"\s*{%\s*extends[^%]*%}\n?", marked)
        at = extends.end() if extends else 0
        marked = marked[:at] + "{% load i18n %}\n" + marked[at:]
    return marked


BLOCK = re.compile(r"{% blocktranslate ([^%]*?)%}(.*?){% endblocktranslate %}", re.S)


def _count_form(match: re.Match[str]) -> str:
    options, body = match.group(1), match.group(2)
    bindings = dict(re.findall(r"(\w+)=(\S+)", options.replace(" trimmed", "")))
    plurals = {name: e for name, e in bindings.items() if "|pluralize" in e}
    counted = {e.split("|pluralize")[0] for e in plurals.values()}
    if len(counted) != 1:
        return match.group(0)  # none, or two counts: a person splits the sentence
    count = counted.pop()
    name = next((n for n, e in bindings.items() if e == count), None)
    if name is None:
        name = count if re.fullmatch(r"\w+", count) and f"{{{{ {count} }}}}" in body else "counter"
    one, many = body, body
    for binding, expression in plurals.items():
        suffixes = re.search(r'pluralize:"([^"]*)"', expression)
        forms = suffixes.group(1).split(",") if suffixes else ["", "s"]
        forms = forms if len(forms) == 2 else ["", forms[0]]
        placeholder = f"{{{{ {binding} }}}}"
        one, many = one.replace(placeholder, forms[0]), many.replace(placeholder, forms[1])
    rest = " ".join(f"{n}={e}" for n, e in bindings.items() if n not in plurals and n != name)
    trimmed = " trimmed" if "trimmed" in options.split() else ""
    head = f"{{% blocktranslate count {name}={count}" + (f" with {rest}" if rest else "")
    return f"{head}{trimmed} %}}{one}{{% plural %}}{many}{{% endblocktranslate %}}"


def plural_counts(source: str) -> str:
    """blocktranslate with a |pluralize binding becomes a count form: a translation may not
    drop a placeholder, and Chinese has no plural suffix to keep."""
    return BLOCK.sub(_count_form, source)


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        path = Path(argument)
        source = path.read_text(encoding="utf-8")
        if (marked := mark(source)) != source:
            path.write_text(marked, encoding="utf-8")
            print("marked", path)
