"""The pool items the raters disagree on most, for a manager to settle.

"Most" is the range of the counted grades (Good and Bad on one pair before Good and Fair), then
the number of distinct grades, then their spread (standard deviation), then the item. Read live
(one pass over the campaign's grades, grouped by polars), so a ruling shows at once; the details
of the listed items take three more queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import polars as pl

from annotate.models import Adjudication, Campaign, Document, Grade, PoolItem
from annotate.selectors.confusion import campaign_fit
from annotate.selectors.real import real_grades
from annotate.selectors_judge import Card, document_shown
from metrics.core.aggregate import DAWID_SKENE, aggregate
from metrics.selectors.drilldown import Judgement
from metrics.services.agreement import grade_frame

PAGE = 100


@dataclass
class Disagreement:
    item_id: int
    query_id: int
    query_external_id: str
    query_text: str
    query_intent: str
    document_external_id: str
    document_title: str
    document_url: str
    document_snippet: str
    # The document as the campaign's card shows it to raters (selectors_judge.document_shown):
    # title, URL, snippet, picture and fields, for templates/annotate/_doc_card.html.
    card: dict
    n: int
    low: float
    high: float
    aggregate: float  # the raters' aggregate by the rule (what the qrels have without a ruling)
    # Each rater's grade with their comment (a can't-judge's reason is its comment).
    grades: list[Judgement] = field(default_factory=list)
    ruling: str | None = None  # the adjudicated label's name
    ruling_grade: float | None = None
    ruling_by: str | None = None
    ruling_note: str = ""
    ruling_at: datetime | None = None

    @property
    def range(self) -> float:
        return self.high - self.low


@dataclass(frozen=True)
class DisagreementList:
    rows: list[Disagreement]
    total: int  # items whose raters disagree at all
    open: int  # of them, without a ruling
    rule: str


def disagreements(
    *, campaign: Campaign, rule: str, only_open: bool = False, limit: int | None = PAGE
) -> DisagreementList:
    grades = grade_frame(campaign=campaign)
    spread = (
        grades.group_by("item")
        .agg(
            n=pl.len(),
            low=pl.col("grade").min(),
            high=pl.col("grade").max(),
            distinct=pl.col("grade").n_unique(),
            sd=pl.col("grade").std(),
        )
        .filter(pl.col("high") > pl.col("low"))
    )
    ruled = set(
        Adjudication.objects.filter(pool_item__campaign=campaign).values_list(
            "pool_item_id", flat=True
        )
    )
    total = spread.height
    open_count = total - int(spread["item"].is_in(list(ruled)).sum()) if ruled else total
    if only_open and ruled:
        spread = spread.filter(~pl.col("item").is_in(list(ruled)))
    spread = spread.with_columns((pl.col("high") - pl.col("low")).alias("range")).sort(
        ["range", "distinct", "sd", "item"], descending=[True, True, True, False]
    )
    if limit is not None:
        spread = spread.head(limit)
    if rule == DAWID_SKENE:
        # Weighed by the whole campaign: the campaign's one fit, as the qrels.
        fitted = campaign_fit(campaign).by_item
        aggregates = {item: fitted[item] for item in spread["item"].to_list()}
    else:
        chosen = grades.filter(pl.col("item").is_in(spread["item"].implode()))
        items, values, _ = aggregate(chosen["item"].to_numpy(), chosen["grade"].to_numpy(), rule)
        aggregates = dict(zip(items.tolist(), values.tolist(), strict=True))
    rows = _details(spread, aggregates, campaign=campaign, many=limit is None)
    return DisagreementList(rows=rows, total=total, open=open_count, rule=rule)


def _details(
    spread: pl.DataFrame, aggregates: dict[int, float], *, campaign: Campaign, many: bool
) -> list[Disagreement]:
    ids = spread["item"].to_list()
    # A long id list would make a huge IN (...): the whole campaign is read and filtered here.
    items = (
        PoolItem.objects.filter(campaign=campaign) if many else PoolItem.objects.filter(pk__in=ids)
    )
    info = {
        row[0]: row
        for row in items.values_list(
            "pk",
            "query_id",
            "query__external_id",
            "query__text",
            "query__description",
            "document__external_id",
            "document__title",
            "document__url",
            "document__snippet",
            "document__extra",
        )
    }
    card = Card.of(campaign)
    rows = {}
    for item, n, low, high in spread.select("item", "n", "low", "high").iter_rows():
        _, qid, qext, qtext, intent, dext, title, url, snippet, extra = info[item]
        shown = document_shown(Document(title=title, url=url, snippet=snippet, extra=extra), card)
        rows[item] = Disagreement(
            item, qid, qext, qtext, intent, dext, title, url, snippet, shown, n, low, high,
            aggregates[item],
        )  # fmt: skip
    # The grades the figures were made of (real_grades), can't-judge answers with their reasons
    # besides: an excluded rater's grade listed here would look as if it counted.
    grades = real_grades(
        Grade.objects.filter(pool_item__campaign=campaign)
        if many
        else Grade.objects.filter(pool_item_id__in=ids),
        campaign,
    )
    for item, rater, label, grade, comment in grades.order_by("rater__username").values_list(
        "pool_item_id", "rater__username", "label__name", "label__grade", "comment"
    ):
        if item in rows:
            rows[item].grades.append(Judgement(rater, label, grade, comment))
    rulings = Adjudication.objects.filter(pool_item__campaign=campaign)
    if not many:
        rulings = rulings.filter(pool_item_id__in=ids)
    for item, name, grade, manager, note, when in rulings.values_list(
        "pool_item_id", "label__name", "label__grade", "manager__username", "note", "changed_at"
    ):
        if item in rows:
            row = rows[item]
            row.ruling, row.ruling_grade, row.ruling_by = name, grade, manager
            row.ruling_note, row.ruling_at = note, when
    return [rows[i] for i in ids]
