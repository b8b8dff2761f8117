"""Adjudication: a manager settles a pool item's label by hand, and the ruling wins over the
raters' aggregate wherever qrels are made (``aggregate_qrels`` calls ``apply_adjudications``).

A ruling is kept beside the grades, never written over them: the raters' own answers stay in
the agreement figures and the exports of raw grades, and clearing the ruling brings the
aggregate back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotate.models import Adjudication, Campaign, Label, PoolItem

_ROW = np.dtype([("item", "i8"), ("q", "i8"), ("d", "i8"), ("g", "f8")])
MAX_NOTE = 2000


class AdjudicationRefused(Exception):
    """The ruling cannot be stored; the message says why, for the manager."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Adjudicated:
    """Qrels columns after the rulings are applied (items ascending)."""

    item: np.ndarray
    query_id: np.ndarray
    document_id: np.ndarray
    grade: np.ndarray
    n: np.ndarray
    adjudicated: np.ndarray  # bool: the grade is a manager's ruling


@transaction.atomic
def adjudication_set(
    *,
    campaign: Campaign,
    manager: AbstractBaseUser,
    item_id: int,
    label_id: int,
    note: str = "",
) -> Adjudication:
    """Settle one pool item of `campaign` with one of the campaign's labels (a second ruling
    on the same item replaces the first). Raises AdjudicationRefused for an item or label of
    another campaign, or a note that is too long."""
    item = PoolItem.objects.filter(campaign=campaign, pk=item_id).first()
    if item is None:
        raise AdjudicationRefused("That pool item is not part of this campaign.")
    label = Label.objects.filter(campaign=campaign, pk=label_id).first()
    if label is None:
        raise AdjudicationRefused("Choose one of the campaign's labels.")
    note = note.strip()
    if len(note) > MAX_NOTE:
        raise AdjudicationRefused(f"Keep the note under {MAX_NOTE} characters.")
    # select_for_update serialises two managers ruling on one item at the same moment.
    ruling = Adjudication.objects.select_for_update().filter(pool_item=item).first()
    if ruling is None:
        return Adjudication.objects.create(pool_item=item, label=label, manager=manager, note=note)
    ruling.label, ruling.manager, ruling.note = label, manager, note
    ruling.save(update_fields=["label", "manager", "note", "changed_at"])
    return ruling


@transaction.atomic
def adjudication_clear(*, campaign: Campaign, item_id: int) -> bool:
    """Remove the ruling on one item (the raters' aggregate applies again). False if none."""
    deleted, _ = Adjudication.objects.filter(
        pool_item__campaign=campaign, pool_item_id=item_id
    ).delete()
    return bool(deleted)


def adjudication_rows(*, campaign: Campaign) -> np.ndarray:
    """(item, query id, document id, grade) of every ruling of the campaign, items ascending."""
    rows = np.fromiter(
        Adjudication.objects.filter(pool_item__campaign=campaign)
        .order_by("pool_item_id")
        .values_list(
            "pool_item_id", "pool_item__query_id", "pool_item__document_id", "label__grade"
        ),
        dtype=_ROW,
    )
    return rows


def apply_adjudications(
    *,
    item: np.ndarray,
    query_id: np.ndarray,
    document_id: np.ndarray,
    grade: np.ndarray,
    n: np.ndarray,
    rulings: np.ndarray,
) -> Adjudicated:
    """The pure merge: an item with a ruling takes the ruling's grade (its number of grades
    stays); a ruled item without any counted grade (all "can't judge", or never graded) gets a
    line of its own, with n = 0. `item` must be ascending, as ``aggregate`` returns it."""
    item = np.asarray(item, dtype=np.int64)
    grade = np.asarray(grade, dtype=np.float64).copy()
    adjudicated = np.zeros(item.size, dtype=bool)
    if rulings.size == 0:
        return Adjudicated(item, query_id, document_id, grade, n, adjudicated)
    pos = np.searchsorted(item, rulings["item"])
    found = pos < item.size
    found[found] = item[pos[found]] == rulings["item"][found]
    grade[pos[found]] = rulings["g"][found]
    adjudicated[pos[found]] = True
    extra = rulings[~found]
    if extra.size:
        item = np.concatenate([item, extra["item"]])
        order = np.argsort(item, kind="stable")
        return Adjudicated(
            item=item[order],
            query_id=np.concatenate([query_id, extra["q"]])[order],
            document_id=np.concatenate([document_id, extra["d"]])[order],
            grade=np.concatenate([grade, extra["g"]])[order],
            n=np.concatenate([n, np.zeros(extra.size, dtype=np.int64)])[order],
            adjudicated=np.concatenate([adjudicated, np.ones(extra.size, dtype=bool)])[order],
        )
    return Adjudicated(item, query_id, document_id, grade, n, adjudicated)
