"""Side-by-side gold from a file: a CSV for one comparison, with a header naming the columns
``query`` (the query's external id) and ``verdict`` (the accepted verdict for the candidate),
and optionally ``position`` (the rank; required by a per-position comparison),
``explanation`` and ``purpose``.

A verdict is G, S or B (as the API takes it), better / same / worse, good / bad, or the
Chinese 好 / 相同 / 差 (更好, 同, 一样, 更差 too). Every row must name one of the comparison's
tasks, once. Each task is marked through ``gold_task_set``, the call the page and the API make,
so the file is refused whatever they refuse, with their message. One transaction: a bad line
anywhere leaves the comparison as it was, and is reported as ``file:line: what is wrong``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotate.models import Comparison, ComparisonUnit, GoldPurpose, GoldTask, VerdictValue
from annotate.services.gold import GoldRefused, gold_task_set, no_such_task
from annotate.services.imports.common import (
    Fields,
    FileArg,
    ImportSummary,
    LineSource,
    importing,
)
from annotate.services.imports.csv_records import header_names, records

REQUIRED = ("query", "verdict")

# Spellings of each verdict, casefolded. The codes are the API's; the words are the ones a
# manager would type in English or Chinese.
VERDICT_WORDS: dict[str, str] = {
    **dict.fromkeys(
        ("g", "good", "better", "candidate better", "好", "更好", "较好", "实验组更好"),
        VerdictValue.GOOD,
    ),
    **dict.fromkeys(("s", "same", "相同", "同", "一样", "持平"), VerdictValue.SAME),
    **dict.fromkeys(
        ("b", "bad", "worse", "candidate worse", "差", "更差", "较差", "实验组更差"),
        VerdictValue.BAD,
    ),
}


@dataclass
class _Row:
    line: int
    task_id: int
    value: str
    explanation: str
    purpose: str


def verdict_value(text: str) -> str | None:
    """The VerdictValue a spelling names (also the choices' labels, "Good (candidate
    better)" or its translation), or None."""
    word = text.strip().casefold()
    if word in VERDICT_WORDS:
        return VERDICT_WORDS[word]
    for value, label in VerdictValue.choices:
        if word == str(label).casefold():
            return value
    return None


def import_sxs_gold(
    *,
    comparison: Comparison,
    file: FileArg,
    manager: AbstractBaseUser | None = None,
    purpose: str = GoldPurpose.HONEYPOT,
    name: str | None = None,
) -> ImportSummary:
    """Mark the file's tasks gold (marking a gold task again replaces its verdict).
    ``summary.created`` counts tasks new to gold, ``summary.updated`` those marked again."""
    noun = pgettext("import summary", "gold side-by-side tasks")
    with importing(file, name, kind="gold", noun=noun, keep_ends=True) as job:
        lines, fields, summary = job.lines, job.fields, job.summary
        rows = _read(lines, comparison, fields, purpose)
        already = set(
            GoldTask.objects.filter(task_id__in=[row.task_id for row in rows]).values_list(
                "task_id", flat=True
            )
        )
        for row in rows:
            try:
                gold_task_set(
                    comparison=comparison,
                    manager=manager,
                    task_id=row.task_id,
                    value=row.value,
                    explanation=row.explanation,
                    purpose=row.purpose,
                )
            except GoldRefused as refused:
                raise fields.fail(row.line, refused.message) from None
            if row.task_id in already:
                summary.updated += 1
            else:
                summary.created += 1
    return summary


def _tasks(comparison: Comparison) -> dict[tuple[str, int | None], int]:
    """(query's external id, position) -> task, the comparison's own tasks (no mirrors)."""
    rows = comparison.tasks.filter(mirror_of__isnull=True).values_list(
        "query__external_id", "position", "pk"
    )
    return {(query, position): pk for query, position, pk in rows}


def _read(lines: LineSource, comparison: Comparison, fields: Fields, purpose: str) -> list[_Row]:
    stream = iter(lines)  # one pass: each iter() of a LineSource counts lines afresh
    first = next(stream, None)
    if first is None:
        return []
    required = REQUIRED
    if comparison.unit == ComparisonUnit.POSITION:
        required = (*REQUIRED, "position")
    names = header_names(first[1], required, first[0], fields)
    tasks = _tasks(comparison)
    rows: list[_Row] = []
    seen: set[int] = set()
    for line, record in records(names, stream, fields):
        position_text = (record.get("position") or "").strip()
        position = fields.integer(position_text, line, _("position")) if position_text else None
        task_id = tasks.get((record["query"].strip(), position))
        if task_id is None:
            raise fields.fail(line, no_such_task().message)
        if task_id in seen:
            raise fields.fail(line, _("this task is on an earlier line too"))
        seen.add(task_id)
        value = verdict_value(record["verdict"])
        if value is None:
            raise fields.fail(
                line,
                _("%(text)s is not a verdict: write better, same or worse (G, S, B; 好, 相同, 差)")
                % {"text": repr(record["verdict"].strip())},
            )
        chosen = (record.get("purpose") or "").strip().casefold() or purpose
        explanation = (record.get("explanation") or "").strip()
        rows.append(_Row(line, task_id, value, explanation, chosen))
    return rows
