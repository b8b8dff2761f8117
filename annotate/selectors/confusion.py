"""The campaign's one Dawid–Skene fit (#18): the labels of the dawid_skene aggregation rule and
each rater's estimated confusion matrix on the rater quality page come from the same call, so a
manager sees the reliabilities the rule used.

Fitted on the campaign's real grades (real_grades: no excluded rater's) together with the
answers to gold, each gold item clamped to its accepted label (GoldItem.label) in every EM step:
gold is where a rater's errors are known for sure, so a rater who is always wrong on gold is
trusted less on the real items too, and a rater who met only honeypots still gets a matrix. The
gold items' own labels are not used as answers: a gold item's label is its ruling (see
annotate.services.gold). The classes are the campaign's whole scale, lowest grade first (a tie
goes to the lower grade, as the majority rule's does); "can't judge" is no class and is left
out. Three queries, whatever the number of raters and items.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotate.models import Campaign, GoldItem, Grade, Label
from annotate.selectors.real import excluded_raters, real_grades
from metrics.core.dawid_skene import dawid_skene


@dataclass(frozen=True)
class Confusions:
    """The scale's label names (lowest grade first) and, per rater id, the matrix
    true label × given label, each row summing to 1."""

    names: list[str]
    by_rater: dict[int, list[list[float]]]


@dataclass(frozen=True)
class CampaignFit:
    """The campaign's Dawid–Skene fit: `by_item` the most probable grade of every fitted pool
    item (a gold item's is its accepted label), `confusions` each rater's matrix."""

    by_item: dict[int, float]
    confusions: Confusions


def fitted_answers(campaign: Campaign) -> tuple[list, np.ndarray, dict[int, int]]:
    """((label id, name, grade) in class order, rows of (pool item, rater, label id),
    {gold item: its accepted label id})."""
    scale = Label.objects.filter(campaign=campaign).order_by("grade", "position")
    labels = list(scale.values_list("pk", "name", "grade"))
    graded = Grade.objects.filter(pool_item__campaign=campaign, cant_judge=False)
    answers = real_grades(graded, campaign) | graded.filter(gold=True).exclude(
        rater_id__in=excluded_raters(campaign)
    )
    answered = answers.order_by().values_list("pool_item_id", "rater_id", "label_id")
    # Three integer columns, read a chunk at a time (a campaign may hold a million answers).
    flat = np.fromiter(
        (v for row in answered.iterator(chunk_size=5000) for v in row), dtype=np.int64
    )
    rows = flat.reshape(-1, 3)
    gold = dict(
        GoldItem.objects.filter(pool_item__campaign=campaign).values_list("pool_item_id", "label")
    )
    return labels, rows, gold


def campaign_fit(campaign: Campaign) -> CampaignFit:
    """Dawid–Skene on the campaign's real grades and gold answers, gold clamped."""
    labels, rows, gold = fitted_answers(campaign)
    names = [name for _, name, _ in labels]
    if rows.size == 0:
        return CampaignFit(by_item={}, confusions=Confusions(names, {}))
    code = {pk: i for i, (pk, _, _) in enumerate(labels)}
    grades = np.array([grade for _, _, grade in labels], dtype=np.float64)
    items, item_code = np.unique(rows[:, 0], return_inverse=True)
    raters, rater_code = np.unique(rows[:, 1], return_inverse=True)
    label_ids = np.array([pk for pk, _, _ in labels], dtype=np.int64)
    by_id = np.argsort(label_ids)
    answer = by_id[np.searchsorted(label_ids, rows[:, 2], sorter=by_id)]
    # The gold items among the fitted ones (items is sorted), by their code.
    gold_items = np.fromiter(gold, dtype=np.int64, count=len(gold))
    at = np.searchsorted(items, gold_items)
    fitted = at < items.size
    fitted[fitted] = items[at[fitted]] == gold_items[fitted]
    clamp = {
        int(i): code[gold[int(item)]]
        for i, item in zip(at[fitted].tolist(), gold_items[fitted].tolist(), strict=True)
    }
    fit = dawid_skene(item_code, rater_code, answer, classes=len(labels), gold=clamp)
    # The fit's matrices are given × true (columns sum to 1): shown as true × given.
    by_rater = {int(rater): fit.confusion[r].T.tolist() for r, rater in enumerate(raters.tolist())}
    by_item = dict(zip(items.tolist(), grades[fit.labels].tolist(), strict=True))
    return CampaignFit(by_item=by_item, confusions=Confusions(names, by_rater))


def rater_confusions(campaign: Campaign) -> Confusions:
    """Each rater's matrix, from campaign_fit (the fit the dawid_skene rule uses)."""
    return campaign_fit(campaign).confusions
