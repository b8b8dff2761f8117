"""The prompt a model judge sends for one item, and the hashes the reply cache is keyed on.

The default template follows the descriptive-narrative-aspects structure of Thomas et al.,
"Large language models can accurately predict searcher preferences" (SIGIR 2024): a role, the
searcher's narrative (the query and its intent), the aspects to weigh (intent match,
trustworthiness), then one overall grade, asked for as a JSON object that llmjudge.parsing
reads strictly. A manager may edit it; only the {placeholders} of PLACEHOLDERS are filled
(a plain substitution, not str.format, so a template cannot reach into Python objects).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

SYSTEM = "You are a search quality rater. You answer with exactly what you are asked for."

DEFAULT_TEMPLATE = """\
You are a search quality rater evaluating the relevance of search results.

Given a query and a result, you must give the result a grade on this scale:
{scale}

The guidelines the human raters follow:
{guidelines}

A person has typed [{query}] into a search engine.
What they were looking for: {intent}

The result:
Title: {title}
URL: {url}
Text: {snippet}
{fields}
{examples}
Split this problem into steps:
Consider the underlying intent of the search.
Measure how well the content matches a likely intent of the query (M).
Measure how trustworthy the result is (T).
Consider the aspects above and the relative importance of each, and decide on a final grade.
Answer with one JSON object and nothing else, such as {{"M": 2, "T": 1, "grade": <grade>}}, \
where grade is one of {grades}."""

PLACEHOLDERS = {
    "scale": "the label scale: one line per label, its grade and name",
    "grades": "the grades allowed, comma-separated",
    "guidelines": "the campaign's guidelines (Markdown, as raters read them)",
    "query": "the query's text",
    "intent": "the query's description of the intent (or 'not given')",
    "title": "the document's title",
    "url": "the document's URL",
    "snippet": "the document's snippet",
    "fields": "the document's other fields, one 'name: value' per line",
    "examples": "the few-shot examples (empty when there are none)",
}
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class ScaleStep:
    name: str
    grade: float


@dataclass(frozen=True)
class ItemText:
    """What the prompt shows of one pool item."""

    query: str
    intent: str
    title: str
    url: str
    snippet: str
    fields: dict

    def content_hash(self) -> str:
        return sha256_json([self.query, self.intent, self.title, self.url, self.snippet,
                            self.fields])  # fmt: skip


@dataclass(frozen=True)
class Example:
    item: ItemText
    grade: float


def sha256_json(value) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def unknown_placeholders(template: str) -> list[str]:
    """The {names} of ``template`` that PLACEHOLDERS does not fill."""
    names = (m.group(1) for m in _PLACEHOLDER.finditer(template) if m.group(1))
    return sorted({n for n in names if n not in PLACEHOLDERS})


def grade_text(grade: float) -> str:
    return f"{grade:g}"


class PromptBuilder:
    """Renders one campaign's template for its items. The parts shared by every item (the
    scale, the guidelines, the examples) are fixed here, so ``template_hash`` covers them:
    a changed scale or guideline asks the model again."""

    def __init__(
        self, *, template: str, scale: list[ScaleStep], guidelines: str, examples: list[Example]
    ) -> None:
        unknown = unknown_placeholders(template)
        if unknown:
            raise ValueError(f"unknown placeholders in the template: {', '.join(unknown)}")
        self.template = template
        self.scale = sorted(scale, key=lambda s: -s.grade)
        self.shared = {
            "scale": "\n".join(f"{grade_text(s.grade)} = {s.name}" for s in self.scale),
            "grades": ", ".join(grade_text(s.grade) for s in self.scale),
            "guidelines": guidelines.strip() or "(none given)",
            "examples": _examples_text(examples),
        }
        self.template_hash = sha256_json([SYSTEM, template, self.shared])

    def messages(self, item: ItemText) -> list[dict[str, str]]:
        values = self.shared | {
            "query": item.query,
            "intent": item.intent.strip() or "not given",
            "title": item.title,
            "url": item.url,
            "snippet": item.snippet,
            "fields": _fields_text(item.fields),
        }

        def fill(match: re.Match) -> str:
            if match.group(1) is None:
                return match.group(0)[0]  # {{ or }} stand for one brace
            return values[match.group(1)]

        return [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": _PLACEHOLDER.sub(fill, self.template)},
        ]


def prompt_hash(messages: list[dict[str, str]]) -> str:
    return sha256_json(messages)


def _fields_text(fields: dict) -> str:
    return "\n".join(
        f"{key}: {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
        for key, value in sorted(fields.items())
    )


def _examples_text(examples: list[Example]) -> str:
    if not examples:
        return ""
    parts = ["Examples graded by the campaign's managers:"]
    for n, ex in enumerate(examples, 1):
        it = ex.item
        parts.append(
            f"Example {n}: query [{it.query}]; result titled {it.title!r} ({it.url}): "
            f"{it.snippet[:500]}\nAnswer: {json.dumps({'grade': ex.grade})}"
        )
    return "\n".join(parts) + "\n"
