"""The data model of DESIGN.md section 2, one module per area."""

from annotate.models.accounts import Invitation, InvitationState, PasswordResetLink, Preferences
from annotate.models.adjudication import Adjudication
from annotate.models.behaviour import BehaviourLog, BehaviourPosition, BehaviourStat
from annotate.models.campaigns import (
    Aggregation,
    Campaign,
    Label,
    Membership,
    QualityEvent,
    Role,
)
from annotate.models.corpus import Document, Query
from annotate.models.gold import GoldItem, GoldPurpose, GoldTask
from annotate.models.judgments import AnswerClaim, Grade, GradeChange, PoolItem, Skip
from annotate.models.labels import LabelSource, SourceKind, SourceLabel
from annotate.models.queue import Lease
from annotate.models.quiz import QuizAnswer, QuizAttempt, QuizGrant
from annotate.models.runs import Run, RunEntry, System
from annotate.models.sxs import (
    Comparison,
    ComparisonUnit,
    PlanChange,
    PrimaryMeasure,
    Side,
    SxsTask,
    TaskSkip,
    Verdict,
    VerdictValue,
)
from annotate.models.sxs_queue import TaskLease, VerdictChange
from annotate.models.tokens import TokenName

__all__ = [
    "Adjudication",
    "Aggregation",
    "AnswerClaim",
    "BehaviourLog",
    "BehaviourPosition",
    "BehaviourStat",
    "Campaign",
    "Comparison",
    "ComparisonUnit",
    "Document",
    "GoldItem",
    "GoldPurpose",
    "GoldTask",
    "Grade",
    "GradeChange",
    "Invitation",
    "InvitationState",
    "Label",
    "LabelSource",
    "Lease",
    "Membership",
    "PasswordResetLink",
    "PlanChange",
    "PoolItem",
    "Preferences",
    "PrimaryMeasure",
    "QualityEvent",
    "Query",
    "QuizAnswer",
    "QuizAttempt",
    "QuizGrant",
    "Role",
    "Run",
    "RunEntry",
    "Side",
    "Skip",
    "SourceKind",
    "SourceLabel",
    "SxsTask",
    "System",
    "TaskLease",
    "TaskSkip",
    "TokenName",
    "Verdict",
    "VerdictChange",
    "VerdictValue",
]
