"""A rater's standing in a campaign (#18): paused (no new work, the leases they held released so
their items go back to the queue), flagged for review, and answers excluded from aggregation,
reports and decisions. A manager pauses, resumes, excludes and includes; the automatic rules
(annotate/services/quality_rules.py) pause and flag. Every change is recorded as a
QualityEvent with its reason."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from annotate.models import Campaign, Membership, QualityEvent, Role
from annotate.selectors.quality import rater_rule_figures
from annotate.selectors_judge import rater_check_forget
from annotate.services.quality_rules import FLAG, PAUSE, Finding, findings

# The rules run after every EVERY-th stored answer (by the answer's id) and after each answer
# to a mirrored duplicate: cheap enough for the tuned judging path, which pays one modulo.
EVERY = 20


def due(answer_id: int) -> bool:
    return answer_id % EVERY == 0


def _release(campaign: Campaign, rater: AbstractBaseUser) -> int:
    # Imported here: the judging kinds call this module after storing an answer.
    from annotate.judging.graded import lease_release
    from annotate.judging.sxs import sxs_lease_release

    released = lease_release(campaign=campaign, rater=rater)
    for comparison in campaign.comparisons.all():
        released += sxs_lease_release(comparison=comparison, rater=rater)
    return released


def _membership(campaign: Campaign, rater: AbstractBaseUser) -> Membership:
    return Membership.objects.select_for_update().get(
        campaign=campaign, user=rater, role=Role.RATER
    )


@transaction.atomic
def rater_pause(
    *,
    campaign: Campaign,
    rater: AbstractBaseUser,
    reason: dict,
    by: AbstractBaseUser | None = None,
) -> bool:
    """Pause the rater (no new work; their leases released). False if already paused."""
    membership = _membership(campaign, rater)
    if membership.paused_at is not None:
        return False
    membership.paused_at = timezone.now()
    membership.paused_by = by
    membership.pause_reason = reason
    membership.save(update_fields=["paused_at", "paused_by", "pause_reason"])
    QualityEvent.objects.create(
        membership=membership, action=QualityEvent.Action.PAUSE, reason=reason, by=by
    )
    _release(campaign, rater)
    if by is None:  # paused by a rule while the rater's own request runs on
        rater_check_forget(campaign)
    return True


@transaction.atomic
def rater_resume(*, campaign: Campaign, rater: AbstractBaseUser, by: AbstractBaseUser) -> bool:
    """Let a paused rater work again; the review flag is cleared too (a manager looked). What
    the rules had seen is recorded: they pause again only on enough new evidence."""
    membership = _membership(campaign, rater)
    if membership.paused_at is None and not membership.review_reason:
        return False
    seen = {f.rule: f.figures.get("n", 0) for f in findings(campaign, _figures(campaign, rater))}
    membership.paused_at = None
    membership.paused_by = None
    membership.pause_reason = {}
    membership.review_reason = {}
    membership.save(update_fields=["paused_at", "paused_by", "pause_reason", "review_reason"])
    QualityEvent.objects.create(
        membership=membership, action=QualityEvent.Action.RESUME, reason={"seen": seen}, by=by
    )
    return True


def _figures(campaign: Campaign, rater: AbstractBaseUser):
    return rater_rule_figures(campaign, rater.pk)


def _fresh(membership: Membership, finding: Finding) -> bool:
    """Whether a finding rests on enough answers since a manager last resumed the rater."""
    last = (
        membership.events.filter(action=QualityEvent.Action.RESUME)
        .order_by("-at", "-pk")
        .values_list("reason", flat=True)
        .first()
    )
    seen = ((last or {}).get("seen") or {}).get(finding.rule)
    return seen is None or finding.figures.get("n", 0) >= seen + finding.minimum


@transaction.atomic
def answers_exclude(
    *, campaign: Campaign, rater: AbstractBaseUser, by: AbstractBaseUser, exclude: bool = True
) -> bool:
    """Leave the rater's answers out of aggregation, reports and decisions (or take them in
    again). Returns whether anything changed."""
    membership = _membership(campaign, rater)
    if membership.answers_excluded == exclude:
        return False
    membership.answers_excluded = exclude
    membership.save(update_fields=["answers_excluded"])
    action = QualityEvent.Action.EXCLUDE if exclude else QualityEvent.Action.INCLUDE
    QualityEvent.objects.create(membership=membership, action=action, by=by)
    return True


def rules_apply(*, campaign: Campaign, rater: AbstractBaseUser) -> list[Finding]:
    """Evaluate the campaign's rules for one rater and act: the first pausing finding pauses
    (after a manager resumed the rater, only on enough new answers: _fresh), a flag is
    recorded once."""
    membership = Membership.objects.filter(campaign=campaign, user=rater, role=Role.RATER).first()
    if membership is None or membership.paused_at is not None:
        return []
    found = findings(campaign, _figures(campaign, rater))
    pausing = [f for f in found if f.action == PAUSE and _fresh(membership, f)]
    if pausing:
        rater_pause(campaign=campaign, rater=rater, reason=pausing[0].as_reason())
    flags = [f for f in found if f.action == FLAG]
    if flags and not membership.review_reason:
        Membership.objects.filter(pk=membership.pk).update(review_reason=flags[0].as_reason())
        QualityEvent.objects.create(
            membership=membership, action=QualityEvent.Action.FLAG, reason=flags[0].as_reason()
        )
    return found


def paused_reason(campaign: Campaign, rater: AbstractBaseUser) -> dict | None:
    """The reason the rater is paused in this campaign, or None when they are not."""
    row = (
        Membership.objects.filter(campaign=campaign, user=rater, role=Role.RATER)
        .values_list("paused_at", "pause_reason")
        .first()
    )
    if row is None or row[0] is None:
        return None
    return row[1] or {}


ACTIONS = ("pause", "resume", "exclude", "include")


def standing_change(
    campaign: Campaign, rater: AbstractBaseUser, action: str, by: AbstractBaseUser, note: str = ""
) -> bool:
    """One of ACTIONS by a manager: the page's and the API's one call."""
    if action == "pause":
        reason = {"note": note.strip()[:500]}
        return rater_pause(campaign=campaign, rater=rater, reason=reason, by=by)
    if action == "resume":
        return rater_resume(campaign=campaign, rater=rater, by=by)
    return answers_exclude(campaign=campaign, rater=rater, by=by, exclude=action == "exclude")
