"""Gold from a file: TREC qrels (``qid iter docno grade``) or CSV with a header naming the
columns ``query``, ``document``, ``label`` and ``explanation`` (``purpose`` optional).

Every pair must be a pool item of the campaign. A qrels grade, or a CSV label (a label's name
or its grade), must be on the campaign's scale; a CSV label may list several accepted labels
separated by ``|`` or give a range as ``low..high`` (grades), the first or lowest being the
pair's label in aggregation. The same pair on several qrels lines accepts each line's label,
the first line's being its label. One transaction: a bad line anywhere leaves the campaign as
it was, and is reported as ``file:line: what is wrong``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotate.models import Campaign, GoldPurpose, Label, PoolItem
from annotate.models.gold import MAX_EXPLANATION
from annotate.services.gold import GoldRefused, gold_item_set
from annotate.services.imports.common import (
    Fields,
    FileArg,
    ImportSummary,
    importing,
)
from annotate.services.imports.csv_records import header_names, records

CSV_COLUMNS = ("query", "document", "label", "explanation")


@dataclass
class _Gold:
    line: int
    labels: list[Label]
    explanation: str = ""
    purpose: str = GoldPurpose.HONEYPOT
    seen: set[int] = field(default_factory=set)


class _Scale:
    def __init__(self, campaign: Campaign, fields: Fields) -> None:
        self.labels = list(campaign.labels.order_by("grade"))
        self.fields = fields

    def one(self, text: str, line: int) -> Label:
        text = text.strip()
        for label in self.labels:
            if text.casefold() == label.name.casefold():
                return label
        grade = self.fields.number(text, line, _("label"))
        for label in self.labels:
            if label.grade == grade:
                return label
        raise self.fields.fail(
            line, _("%(label)s is not on the campaign's scale") % {"label": repr(text)}
        )

    def many(self, text: str, line: int) -> list[Label]:
        if ".." in text:
            low, high = (self.fields.number(t.strip(), line, _("label")) for t in text.split(".."))
            found = [label for label in self.labels if low <= label.grade <= high]
            if low > high or not found:
                raise self.fields.fail(line, _("no label of the scale lies in that range"))
            return found
        return [self.one(part, line) for part in text.split("|")]


def import_gold(
    *,
    campaign: Campaign,
    file: FileArg,
    manager: object = None,
    purpose: str = GoldPurpose.HONEYPOT,
    name: str | None = None,
) -> ImportSummary:
    """Mark the file's pairs gold (marking a gold pair again replaces its accepted answers)."""
    noun = pgettext("import summary", "gold items")
    with importing(file, name, kind="gold", noun=noun, keep_ends=True) as job:
        lines, fields, summary = job.lines, job.fields, job.summary
        scale = _Scale(campaign, fields)
        items = _pool(campaign)
        golds: dict[int, _Gold] = {}
        stream = iter(lines)  # one pass: each iter() of a LineSource counts lines afresh
        first = next(stream, None)
        if first is not None:
            line, text = first
            if "," in text and "query" in text.casefold():
                _read_csv(text, stream, items, scale, fields, golds, purpose)
            else:
                _read_qrels([(line, text)], items, scale, fields, golds, purpose)
                _read_qrels(stream, items, scale, fields, golds, purpose)
        for item_id, gold in golds.items():
            try:
                gold_item_set(
                    campaign=campaign,
                    manager=manager,  # type: ignore[arg-type]
                    item_id=item_id,
                    label_id=gold.labels[0].pk,
                    accepted=[label.pk for label in gold.labels],
                    explanation=gold.explanation,
                    purpose=gold.purpose,
                )
            except GoldRefused as refused:
                raise fields.fail(gold.line, refused.message) from None
            summary.created += 1
    return summary


def _pool(campaign: Campaign) -> dict[tuple[str, str], int]:
    rows = PoolItem.objects.filter(campaign=campaign).values_list(
        "query__external_id", "document__external_id", "pk"
    )
    return {(q, d): pk for q, d, pk in rows}


def _item(items: dict, qid: str, docno: str, line: int, fields: Fields) -> int:
    item_id = items.get((qid, docno))
    if item_id is None:
        raise fields.fail(
            line,
            _("query %(qid)s and document %(docno)s are not a pair of this campaign's pool")
            % {"qid": repr(qid), "docno": repr(docno)},
        )
    return item_id


def _read_qrels(lines, items, scale: _Scale, fields: Fields, golds: dict, purpose: str) -> None:
    for line, text in lines:
        cols = text.split()
        if not cols:
            continue
        if len(cols) != 4:
            raise fields.fail(
                line,
                _("expected 4 columns (query, iteration, document, grade), found %(n)s")
                % {"n": len(cols)},
            )
        qid, _iteration, docno, grade = cols
        item_id = _item(items, qid, docno, line, fields)
        label = scale.one(grade, line)
        gold = golds.setdefault(item_id, _Gold(line=line, labels=[], purpose=purpose))
        if label.pk not in gold.seen:
            gold.labels.append(label)
            gold.seen.add(label.pk)


def _read_csv(header: str, lines, items, scale, fields: Fields, golds: dict, purpose: str):
    names = header_names(header, CSV_COLUMNS, 1, fields)
    for line, record in records(names, lines, fields):
        item_id = _item(items, record["query"].strip(), record["document"].strip(), line, fields)
        if item_id in golds:
            raise fields.fail(line, _("this pair is on an earlier line too"))
        explanation = record["explanation"].strip()
        if len(explanation) > MAX_EXPLANATION:
            raise fields.fail(
                line, _("Keep the explanation under %(n)s characters.") % {"n": MAX_EXPLANATION}
            )
        chosen = (record.get("purpose") or "").strip() or purpose
        if chosen not in GoldPurpose.values:
            raise fields.fail(line, _("the purpose must be honeypot or quiz"))
        labels = scale.many(record["label"], line)
        golds[item_id] = _Gold(line=line, labels=labels, explanation=explanation, purpose=chosen)
