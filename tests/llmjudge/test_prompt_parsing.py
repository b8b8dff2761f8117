"""The prompt builder and the strict reading of answers."""

from __future__ import annotations

import pytest

from llmjudge.parsing import grade_names, parse_grade
from llmjudge.prompt import DEFAULT_TEMPLATE, Example, ItemText, PromptBuilder, ScaleStep

SCALE = [ScaleStep("Good", 3), ScaleStep("Fair", 2), ScaleStep("Bad", 1)]
GRADES = grade_names([(s.name, s.grade) for s in SCALE])
ITEM = ItemText(query="cheap flights", intent="one-way tickets under 100 euros",
                title="Flights", url="https://example.com/f", snippet="Book now",
                fields={"price": 80, "brand": "Fly"})  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "grade"),
    [
        ('{"grade": 3}', 3.0),
        ('{"M": 2, "T": 1, "grade": 2}', 2.0),
        ('{"grade": "fair"}', 2.0),
        ('{"grade": "1"}', 1.0),
        ("Good", 3.0),
        (" 2 ", 2.0),
        ('```json\n{"grade": 1}\n```', 1.0),
        ('{"grade": 4}', None),  # not on the scale
        ('{"grade": true}', None),
        ('{"score": 3}', None),
        ("[3]", None),
        ("I would say 3", None),
        ('{"grade": 3} and also {"grade": 1}', None),
        ('{"grade": NaN}', None),
        ("", None),
    ],
)
def test_only_a_whole_answer_on_the_scale_is_read(reply, grade):
    assert parse_grade(reply, grades=GRADES) == grade


def test_the_prompt_shows_the_scale_guidelines_query_intent_and_document():
    builder = PromptBuilder(template=DEFAULT_TEMPLATE, scale=SCALE, guidelines="Be *strict*.",
                            examples=[])  # fmt: skip
    system, user = builder.messages(ITEM)
    text = user["content"]
    for part in (
        "3 = Good\n2 = Fair\n1 = Bad",
        "Be *strict*.",
        "[cheap flights]",
        "one-way tickets under 100 euros",
        "https://example.com/f",
        "price: 80",
        "brand: Fly",
        "grade is one of 3, 2, 1",
        '{"M": 2, "T": 1, "grade": <grade>}',
    ):
        assert part in text, part  # fmt: skip
    assert system["role"] == "system" and "{" not in text.replace('{"M"', "")


def test_unknown_placeholders_are_refused_and_braces_can_be_doubled():
    with pytest.raises(ValueError, match="unknown placeholders in the template: secret"):
        PromptBuilder(template="{query} {secret}", scale=SCALE, guidelines="", examples=[])
    # Not a placeholder (no str.format here): left as written, nothing of Python reachable.
    odd = PromptBuilder(template="{query.__class__}", scale=SCALE, guidelines="", examples=[])
    assert odd.messages(ITEM)[1]["content"] == "{query.__class__}"
    builder = PromptBuilder(template="{{query}} is {query}", scale=SCALE, guidelines="",
                            examples=[])  # fmt: skip
    assert builder.messages(ITEM)[1]["content"] == "{query} is cheap flights"


def test_the_template_hash_covers_the_scale_guidelines_and_examples():
    def hashed(**kw):
        args = {"template": DEFAULT_TEMPLATE, "scale": SCALE, "guidelines": "", "examples": []}
        return PromptBuilder(**(args | kw)).template_hash

    base = hashed()
    assert base == hashed()
    assert base != hashed(guidelines="new rule")
    assert base != hashed(scale=SCALE[:2])
    assert base != hashed(examples=[Example(ITEM, 3.0)])
    assert base != hashed(template=DEFAULT_TEMPLATE + ".")
