"""The protocol a task kind fills in, and what the mechanism hands back: refusals, outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from django.contrib.auth.models import AbstractBaseUser
from django.db import models

from annotate.counted import Counters
from annotate.models import Campaign


class Refused(Exception):
    """An answer, skip or lease that must not be taken. `status` is the HTTP status to answer
    with; each kind raises its own subclass (GradeRefused, VerdictRefused)."""

    def __init__(self, message: str, *, status: int = 400, **details: Any) -> None:
        message = str(message)  # a lazy translation, in the language of the request raising it
        super().__init__(message)
        self.message = message
        self.status = status
        self.details = details  # more for the client: a conflict's stored answer


@dataclass(frozen=True)
class Outcome:
    """What storing an answer did: created it, changed it (the old value kept in its history),
    or neither (the same answer again: a double click, a network retry)."""

    answer: Any
    created: bool
    changed: bool
    skipped: bool = False  # a skip, not an answer (graded items only)

    @property
    def result(self) -> str:
        """The word every face answers with: "created", "changed", "unchanged" (or
        "skipped")."""
        if self.skipped:
            return "skipped"
        if self.created:
            return "created"
        return "changed" if self.changed else "unchanged"


@dataclass(frozen=True)
class Words:
    """A kind's refusals, in the words its raters know (item and grade, task and verdict)."""

    not_found: str
    not_assigned: str
    late: str
    full: str
    conflict: str  # an answer from a page that had not seen the rater's stored one
    answered: str  # a skip of a task the rater already answered
    skipped: str  # an answer to a task the rater skipped, from a page that did not know


@dataclass(frozen=True)
class Locked:
    """What an answer reads with its task's row lock, in one round trip."""

    task_id: int
    query_id: int
    needed: int
    counted: int
    answer_id: int | None
    skip_id: int | None
    lease_id: int | None
    lease_expired: bool
    renew_due: bool
    extra: tuple  # the kind's lock_columns
    gold: bool = False  # the task is gold: its answers do not count, nor is it capped


@dataclass(frozen=True)
class Submission:
    """One answer as a face hands it over: the kind reads `choice` (a label, a preferred
    side); `note` is the comment or reason, `seconds` the time the rater took."""

    task_id: object
    choice: Any
    note: str = ""
    seconds: float | None = None
    # The rater's stored answer the sending page had seen (its `token`), or None for a page
    # that saw none: an answer must not replace one its page never showed (two tabs).
    replaces: str | None = None


SKIP_TOKEN = "skip"


class TaskKind:
    """A task kind: the tables, SQL fragments and hooks the shared steps fill in.

    SQL fragments name the task row `p` (and, in lock fragments, the rater's lease `l`)."""

    counters: ClassVar[Counters]
    scope_column: ClassVar[str]  # the task's column naming its scope
    needed_sql: ClassVar[str]  # answers a task needs; one %s: the scope's default
    open_where: ClassVar[str] = ""  # more conditions on an open task, without parameters
    open_exclusions: ClassVar[str] = ""  # more, each with the rater's id as parameter
    open_exclusion_params: ClassVar[int] = 0
    lease_columns: ClassVar[tuple[str, ...]] = ()  # set on a new lease, kept when retaken
    row_columns: ClassVar[str]  # what from_row reads
    row_joins: ClassVar[str] = ""
    lock_columns: ClassVar[str] = ""  # read with the answer's lock, into Locked.extra
    lock_joins: ClassVar[str] = ""  # their joins; parameters from lock_params
    gold_table: ClassVar[str]  # the kind's gold rows (annotate/models/gold.py)
    gold_fk: ClassVar[str]
    task_model: ClassVar[type[models.Model]]
    lease_model: ClassVar[type[models.Model]]
    lease_task: ClassVar[str]  # the lease's field naming its task
    answer_model: ClassVar[type[models.Model]]
    history_model: ClassVar[type[models.Model]]
    history_fk: ClassVar[str]  # the history row's field naming the answer
    skip_model: ClassVar[type[models.Model]]
    note_field: ClassVar[str]
    refused: ClassVar[type[Refused]]
    outcome: ClassVar[type[Outcome]] = Outcome
    words: ClassVar[Words]

    def sql_names(self) -> dict[str, str]:
        """The tables and columns the shared statements' templates name, by their placeholder:
        one mapping for the answer lock, the open rule and the progress counts (a template
        takes the names it uses; str.format leaves the others)."""
        c = self.counters
        return {
            "task": c.task_table,
            "scope": self.scope_column,
            "needed": self.needed_sql,
            "lease": c.lease_table,
            "fk": c.lease_fk,
            "answer": c.answer_table,
            "afk": c.answer_fk,
            "skip": self.skip_model._meta.db_table,
        }

    # ---- the scope ----
    def campaign(self, scope: Any) -> Campaign:
        raise NotImplementedError

    def needed_default(self, scope: Any) -> int:
        raise NotImplementedError

    # ---- leasing and presenting ----
    def from_row(self, scope: Any, row: tuple) -> models.Model:
        """A task (what its presentation needs loaded) from a row of row_columns."""
        raise NotImplementedError

    def lease_values(self, scope: Any, rater: AbstractBaseUser, task: Any) -> tuple:
        """Values of lease_columns for a new lease of `task` (built by from_row)."""
        return ()

    def exclusion_params(self, rater: AbstractBaseUser, at: Any) -> list:
        """The parameters of open_exclusions; `at` is now, adapted for the database."""
        return [rater.pk] * self.open_exclusion_params

    def within_query(self, rater: AbstractBaseUser, task: Any) -> Any:
        """The order of a query's tasks for this rater."""
        raise NotImplementedError

    # ---- answers ----
    def lock_params(self, submission: Submission) -> list:
        return []

    def check(self, locked: Locked, submission: Submission) -> None:
        """Refuse what the locked row shows cannot be answered so (raise self.refused)."""

    def counts(self, submission: Submission) -> bool:
        """Whether the answer counts towards the answers the task needs."""
        return True

    def answer_counts(self, answer: Any) -> bool:
        return True

    def new_values(self, submission: Submission, locked: Locked) -> dict:
        raise NotImplementedError

    def changed_values(self, submission: Submission, answer: Any) -> dict:
        raise NotImplementedError

    def token(self, answer: Any) -> str:
        """A stored answer's value in a few characters: what a page that showed it sends back
        as `replaces` when it changes it."""
        raise NotImplementedError

    def stored(self, answer: Any) -> dict:
        """A stored answer as a conflict shows it to the rater (the page's own terms)."""
        raise NotImplementedError
