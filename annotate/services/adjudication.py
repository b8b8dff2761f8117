"""Adjudication: a manager settles a pool item's label by hand, and the ruling wins over the
raters' aggregate wherever qrels are made (the merge is metrics.core.aggregate's).

A ruling is kept beside the grades, never written over them: the raters' own answers stay in
the agreement figures and the exports of raw grades, and clearing the ruling brings the
aggregate back.
"""

from __future__ import annotations

import numpy as np
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from annotate.models import Adjudication, Campaign, Label, PoolItem

_ROW = np.dtype([("item", "i8"), ("q", "i8"), ("d", "i8"), ("g", "f8")])
MAX_NOTE = 2000


class AdjudicationRefused(Exception):
    """The ruling cannot be stored; the message says why, for the manager."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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
        raise AdjudicationRefused(_("That pool item is not part of this campaign."))
    label = Label.objects.filter(campaign=campaign, pk=label_id).first()
    if label is None:
        raise AdjudicationRefused(_("Choose one of the campaign's labels."))
    note = note.strip()
    if len(note) > MAX_NOTE:
        raise AdjudicationRefused(_("Keep the note under %(n)s characters.") % {"n": MAX_NOTE})
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
    deleted, _by_model = Adjudication.objects.filter(
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
