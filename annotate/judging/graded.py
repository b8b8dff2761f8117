"""Graded judging as a task kind: pool items, leased per query, graded on the campaign's scale
(or can't-judge, which does not count), and skipped. With the service calls its faces use."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotate.counted import POOL
from annotate.judging import handles
from annotate.judging.answers import answer_submit, as_id
from annotate.judging.handles import order_key
from annotate.judging.kinds import Locked, Outcome, Refused, Submission, TaskKind, Words
from annotate.judging.leasing import (
    ensure_rater,
    held_or_next,
    in_query_blocks,
    lease_next_query,
    leases_release,
)
from annotate.judging.open import loaded, open_tasks
from annotate.judging.skips import skip_submit
from annotate.models import Campaign, Document, Grade, GradeChange, Lease, PoolItem, Query, Skip
from annotate.services import quality


class GradeRefused(Refused):
    """A grade or skip that must not be stored. `status` is the HTTP status to answer with."""


@dataclass(frozen=True)
class GradeOutcome(Outcome):
    @property
    def grade(self) -> Grade:
        return self.answer


@dataclass(frozen=True)
class GradeChoice:
    """A label (by id) or can't-judge."""

    label_id: object = None
    cant_judge: bool = False

    @property
    def label(self) -> int | None:
        return None if self.cant_judge or self.label_id is None else as_id(self.label_id)


def rater_order_key(rater_id: int, item_id: int) -> bytes:
    """A stable per-rater shuffle, keyed by the server's secret: documents of a query never
    appear in the systems' order, nor in one a rater could compute."""
    return order_key(rater_id, handles.GRADED, item_id)


_ITEM_FIELDS = ("id", "campaign_id", "query_id", "document_id")
_QUERY_FIELDS = ("id", "campaign_id", "external_id", "text", "description")
_DOCUMENT_FIELDS = ("id", "campaign_id", "external_id", "title", "url", "snippet", "extra")


class GradedKind(TaskKind):
    counters = POOL
    scope_column = "campaign_id"
    needed_sql = "COALESCE(p.raters_needed, %s)"
    open_exclusions = """
    AND NOT EXISTS (
        SELECT 1 FROM annotate_skip s WHERE s.pool_item_id = p.id AND s.rater_id = %s
    )"""
    open_exclusion_params = 1
    # The fields the judging screen and the queue use are loaded; any other is fetched on
    # access, as with .only().
    row_columns = """p.id, p.query_id, p.document_id, p.raters_needed, p.counted,
    q.external_id, q.text, q.description, d.external_id, d.title, d.url, d.snippet, d.extra"""
    row_joins = """
INNER JOIN annotate_query q ON q.id = p.query_id
INNER JOIN annotate_document d ON d.id = p.document_id"""
    lock_columns = ", lab.id"
    lock_joins = "\nLEFT JOIN annotate_label lab ON lab.id = %s AND lab.campaign_id = p.campaign_id"
    gold_table = "annotate_golditem"
    gold_fk = "pool_item_id"
    task_model = PoolItem
    lease_model = Lease
    lease_task = "pool_item"
    answer_model = Grade
    history_model = GradeChange
    history_fk = "grade"
    skip_model = Skip
    note_field = "comment"
    refused = GradeRefused
    outcome = GradeOutcome
    words = Words(
        not_found=_("This item is not part of this campaign."),
        not_assigned=_("This item is not assigned to you."),
        late=_(
            "Your time on this item ran out and other raters have graded it since; "
            "your grade was not needed. Continue with the next item."
        ),
        full=_("This item already has all the grades it needs."),
        conflict=_(
            "You already graded this item, from another tab or device. "
            "Keep that grade, or use this one."
        ),
        answered=_("You already graded this item; change the grade instead."),
        skipped=_("You skipped this item. Undo the skip to grade it."),
    )

    def campaign(self, scope: Campaign) -> Campaign:
        return scope

    def needed_default(self, scope: Campaign) -> int:
        return scope.overlap

    def from_row(self, scope: Campaign, row: tuple) -> PoolItem:
        item_id, query_id, document_id, needed, counted, *texts = row
        db = connection.alias
        item = loaded(PoolItem, db, _ITEM_FIELDS, (item_id, scope.pk, query_id, document_id))
        item.raters_needed, item.counted = needed, counted
        query = loaded(Query, db, _QUERY_FIELDS, (query_id, scope.pk, *texts[:3]))
        *texts, extra = texts
        # The card's picture and table read it (selectors_judge.document_shown); SQLite gives
        # JSON text, PostgreSQL may give it decoded.
        extra = Document._meta.get_field("extra").from_db_value(extra, None, connection)
        document = loaded(
            Document, db, _DOCUMENT_FIELDS, (document_id, scope.pk, *texts[3:], extra)
        )
        item._state.fields_cache.update(campaign=scope, query=query, document=document)
        return item

    def within_query(self, rater: AbstractBaseUser, task: PoolItem) -> bytes:
        return rater_order_key(rater.pk, task.pk)

    def lock_params(self, submission: Submission | None) -> list:
        return [submission.choice.label if submission else None]

    def check(self, locked: Locked, submission: Submission) -> None:
        choice: GradeChoice = submission.choice
        if not choice.cant_judge:
            if choice.label_id is None:
                raise GradeRefused(_("Choose a label."))
            if locked.extra[0] is None:
                raise GradeRefused(_("That label is not on this campaign's scale."))

    def counts(self, submission: Submission) -> bool:
        return not submission.choice.cant_judge

    def answer_counts(self, answer: Grade) -> bool:
        return not answer.cant_judge

    def new_values(self, submission: Submission, locked: Locked) -> dict:
        return self.changed_values(submission, None)

    def changed_values(self, submission: Submission, answer: Grade | None) -> dict:
        choice: GradeChoice = submission.choice
        return {"label_id": choice.label, "cant_judge": choice.cant_judge}

    def token(self, answer: Grade) -> str:
        return grade_token(label_id=answer.label_id, cant_judge=answer.cant_judge)

    def stored(self, answer: Grade) -> dict:
        return {"label": answer.label_id, "cant_judge": answer.cant_judge}


def grade_token(*, label_id: int | None, cant_judge: bool) -> str:
    """A grade as its page sends it back in `replaces`: "label:<id>" or "cant_judge"."""
    return "cant_judge" if cant_judge else f"label:{label_id}"


GRADED = GradedKind()


def queue_items(
    *, rater: AbstractBaseUser, campaign: Campaign, look_ahead: bool = False
) -> list[PoolItem]:
    """The items the rater holds now, one query after the other, in the rater's own order;
    leases the next query when empty (see leasing.held_or_next)."""
    return held_or_next(GRADED, scope=campaign, rater=rater, look_ahead=look_ahead)


def queue_lease_ahead(*, rater: AbstractBaseUser, campaign: Campaign) -> list[PoolItem]:
    """Lease the next query while the rater is still on the last item of the current one;
    returns the newly leased items in the rater's order (empty when nothing is open)."""
    ensure_rater(GRADED, campaign, rater)
    leased = lease_next_query(GRADED, scope=campaign, rater=rater, now=timezone.now())
    return in_query_blocks(GRADED, leased, rater)


def grade_submit(
    *,
    rater: AbstractBaseUser,
    campaign: Campaign,
    item_id: object,
    label_id: object = None,
    cant_judge: bool = False,
    comment: str = "",
    seconds: float | None = None,
    replaces: str | None = None,
) -> GradeOutcome:
    """Store or change the rater's grade for one item (see answers.answer_submit); `replaces`
    is the token of the rater's stored grade (or "skip") that the sending page had shown."""
    choice = GradeChoice(label_id=label_id, cant_judge=cant_judge)
    submission = Submission(
        task_id=item_id, choice=choice, note=comment, seconds=seconds, replaces=replaces or None
    )
    outcome = answer_submit(GRADED, rater=rater, scope=campaign, submission=submission)
    if outcome.created and quality.due(outcome.answer.pk):
        quality.rules_apply(campaign=campaign, rater=rater)
    return outcome


def item_skip(*, rater: AbstractBaseUser, campaign: Campaign, item_id: object) -> Skip:
    """Skip an item: it is not offered to this rater again (see skips.skip_submit)."""
    return skip_submit(GRADED, rater=rater, scope=campaign, task_id=item_id).answer


def lease_release(
    *, campaign: Campaign, rater: AbstractBaseUser | None = None, query_id: int | None = None
) -> int:
    """A manager frees leases (all of a rater's, or a query's); returns how many."""
    return leases_release(GRADED, scope=campaign, rater=rater, query_id=query_id)


def open_items(*, campaign: Campaign, rater: AbstractBaseUser, now: datetime) -> QuerySet:
    """The items open to this rater (see open.open_tasks)."""
    return open_tasks(GRADED, scope=campaign, rater=rater, now=now)
