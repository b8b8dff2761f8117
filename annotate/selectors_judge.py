"""Reads behind the rater's judging screen: what the rater may see, and nothing more.

Blindness lives here: an item is described to the rater only by its id, the query's text and
intent, and the document's title, URL and snippet, with what the campaign's card adds from the
document's extra fields (a picture, a small table: the same card for every document). System
names, runs, ranks, scores and other raters' grades are never read for a rater, so no page or
JSON answer can carry them.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import Prefetch, Q, QuerySet
from django.http import Http404
from django.utils.translation import gettext

from annotate.cards import CardPart, card_extras, card_parts, extra_keys
from annotate.inputs import clamp
from annotate.judging import handles
from annotate.judging.open import aware
from annotate.models import Campaign, Document, Grade, GradeChange, PoolItem, Role, Skip
from annotate.selectors import User
from annotate.services.markdown import image_allowed
from config.db import fetch_instances, hot_cursor


@dataclass(frozen=True)
class LabelKey:
    """A label button: its name and the two keys that choose it."""

    id: int
    name: str
    key: str
    number: int
    grade: float

    def as_json(self) -> dict:
        return {"id": self.id, "name": self.name, "key": self.key, "number": self.number}


# campaign_rated_by leaves the rater's id on the campaign it returns, so the queue's services,
# called with that campaign in the same request, need not ask the database again.
_RATER_CHECKED = "_rater_checked_id"


# Every judging request asks this first; the ORM's version (campaigns_for(...).get()) cost
# four times the CPU of this statement to compile.
_RATED_BY = """
SELECT {columns} FROM annotate_campaign c
WHERE c.slug = %s AND EXISTS (
    SELECT 1 FROM annotate_membership m
    WHERE m.campaign_id = c.id AND m.user_id = %s AND m.role = %s{paused}
)
"""
_ACTIVE = _RATED_BY.replace("{paused}", " AND m.paused_at IS NULL")
_PAUSED = _RATED_BY.replace("{paused}", " AND m.paused_at IS NOT NULL")


def campaign_rated_by(user: User, slug: str) -> Campaign:
    """The campaign if the user is one of its raters; 404 otherwise, so nobody else learns
    that it exists (a manager who is not a rater of it included). A paused rater gets the
    campaign with `rater_paused` set (the pages show why; the judging steps refuse work)."""
    if not user.is_authenticated or not isinstance(slug, str):
        raise Http404("No such campaign")
    params = [slug, user.pk, Role.RATER.value]
    found = fetch_instances(Campaign, _ACTIVE, params, alias="c")
    if found:
        campaign = found[0]
        setattr(campaign, _RATER_CHECKED, user.pk)
        return campaign
    # Only when the common case missed: a paused rater, or nobody's campaign.
    found = fetch_instances(Campaign, _PAUSED, params, alias="c")
    if not found:
        raise Http404("No such campaign")
    found[0].rater_paused = True
    return found[0]


def rater_check_forget(campaign: Campaign) -> None:
    """The rater was paused during this request: the campaign object must no longer vouch for
    them, so the steps after (the next task's lease) ask the database and are refused."""
    if getattr(campaign, _RATER_CHECKED, None) is not None:
        setattr(campaign, _RATER_CHECKED, None)
        campaign.rater_paused = True


def rater_paused(campaign: Campaign) -> bool:
    """Whether campaign_rated_by found the rater paused in this campaign."""
    return getattr(campaign, "rater_paused", False)


def rater_checked(campaign: Campaign, user: AbstractBaseUser) -> bool:
    """Whether this campaign object came from campaign_rated_by for this user."""
    return user.pk is not None and getattr(campaign, _RATER_CHECKED, None) == user.pk


# The scale, read on every judging page (a hot statement: the ORM's query cost more to
# compile than to run).
_LABELS = """
SELECT id, name, "key", grade FROM annotate_label WHERE campaign_id = %s ORDER BY position, id
"""


def label_keys(campaign: Campaign) -> list[LabelKey]:
    """The scale in the order shown; number keys 1..n follow that order (DESIGN.md §2)."""
    with hot_cursor() as cursor:
        cursor.execute(_LABELS, [campaign.pk])
        rows = cursor.fetchall()
    return [
        LabelKey(id=pk, name=name, key=key.lower(), number=i, grade=grade)
        for i, (pk, name, key, grade) in enumerate(rows, start=1)
    ]


# The needed and counted grades of a whole campaign, read on every judging page: one
# statement, where the ORM's two queries cost more to compile than to run.
_CAMPAIGN_PROGRESS = """
SELECT (
    SELECT COALESCE(SUM(COALESCE(p.raters_needed, %s)), 0) FROM annotate_poolitem p
    WHERE p.campaign_id = %s AND NOT p.gold
), (
    SELECT COUNT(*) FROM annotate_grade g INNER JOIN annotate_poolitem p ON p.id = g.pool_item_id
    WHERE p.campaign_id = %s AND NOT g.cant_judge
)
"""


def campaign_progress(campaign: Campaign) -> dict[str, int]:
    """Counted grades out of the grades the whole pool needs.

    The queue never lets an item collect more counted grades than it needs, so the plain count
    is the progress; the cap only matters if a manager lowered the overlap afterwards, or
    near the end, where answers to honeypots make it run ahead.
    Answers to gold count here as real ones do (raters see this figure): a grade that did not
    move it would tell a rater their query was a honeypot. Gold items need nothing.
    """
    with connection.cursor() as cursor:
        cursor.execute(_CAMPAIGN_PROGRESS, [campaign.overlap, campaign.pk, campaign.pk])
        needed, counted = cursor.fetchone()
    return {"counted": min(counted, needed), "needed": needed}


def safe_link(url: str) -> str:
    """The document's URL if it is a web address; imported data could hold a javascript:
    URL, which must never become a link on the rater's page."""
    url = (url or "").strip()
    return url if urlsplit(url).scheme.lower() in ("http", "https") else ""


def item_payload(
    item: PoolItem, rater: AbstractBaseUser, card: Card | None = None, handle: str | None = None
) -> dict:
    """What the rater's screen needs to show one item, and nothing else: the item is named by
    the rater's handle, never its id (#24)."""
    return {
        "id": handle or handles.handle_for(rater.pk, handles.GRADED, item.pk),
        "query": clamp(item.query.text, "query_text"),
        "description": clamp(item.query.description, "intent"),
        **document_shown(item.document, card),
    }


def known_stub(handle: str) -> dict:
    """A held task or item the page already has, named and nothing more: an answer's reply
    lists what the rater holds, and building every held task's documents again for each
    answer was most of a verdict's time. The page fills it from what it holds (judge-core.js
    receive), or asks for the whole queue when it does not hold it any more."""
    return {"id": handle, "known": True}


@dataclass(frozen=True)
class Card:
    """A campaign's document card (annotate/cards.py) and the hosts its pictures may come
    from: the same for every document, on both screens and both sides."""

    parts: tuple[CardPart, ...]
    image_hosts: frozenset[str]
    highlight: bool

    @classmethod
    def of(cls, campaign: Campaign) -> Card:
        return cls(
            parts=tuple(card_parts(campaign.card)),
            image_hosts=frozenset(campaign.image_host_list),
            highlight=campaign.highlight_terms,
        )

    @property
    def reads_extra(self) -> bool:
        return bool(extra_keys(self.parts))

    def image_ok(self, src: str) -> bool:
        return image_allowed(src, self.image_hosts)


def document_shown(document: Document, card: Card | None = None) -> dict:
    """A document as a rater sees it: title, URL, snippet, and what the card adds from its
    extra fields (a picture from an allowed host, a small table)."""
    url = safe_link(document.url)
    shown = {
        "title": clamp(document.title, "title") or url or gettext("(untitled document)"),
        "url": url,
        "snippet": clamp(document.snippet, "snippet"),
    }
    if card is not None and card.reads_extra:
        shown.update(card_extras(card.parts, document.extra, card.image_ok))
    return shown


def extra_key_used(*, campaign: Campaign, key: str) -> bool:
    """Whether some document of the campaign has the extra field ``key``."""
    return Document.objects.filter(campaign=campaign, extra__has_key=key).exists()


def item_seen_by(*, campaign: Campaign, rater: AbstractBaseUser, item_id: int) -> PoolItem:
    """An item the rater may look at: one they hold, graded or skipped. 404 otherwise."""
    mine = Q(leases__rater=rater) | Q(grades__rater=rater) | Q(skips__rater=rater)
    item = (
        PoolItem.objects.filter(mine, campaign=campaign, pk=item_id)
        .select_related("query", "document")
        .first()
    )
    if item is None:
        raise Http404("No such item")
    return item


def grade_of(*, rater: AbstractBaseUser, item: PoolItem) -> Grade | None:
    return Grade.objects.filter(rater=rater, pool_item=item).select_related("label").first()


def is_skipped(*, rater: AbstractBaseUser, item: PoolItem) -> bool:
    return Skip.objects.filter(rater=rater, pool_item=item).exists()


# Where Back goes: the latest grade and the latest skip, in one statement (the ORM's two
# queries cost more to compile than to run, on every page of the queue).
_LAST_TOUCHED = """
SELECT * FROM (
    SELECT 0 AS source, g.pool_item_id, g.created_at FROM annotate_grade g
    INNER JOIN annotate_poolitem p ON p.id = g.pool_item_id
    WHERE p.campaign_id = %s AND g.rater_id = %s ORDER BY g.created_at DESC LIMIT 1
) latest_grade
UNION ALL
SELECT * FROM (
    SELECT 1 AS source, s.pool_item_id, s.created_at FROM annotate_skip s
    INNER JOIN annotate_poolitem p ON p.id = s.pool_item_id
    WHERE p.campaign_id = %s AND s.rater_id = %s ORDER BY s.created_at DESC LIMIT 1
) latest_skip
"""


def last_touched_item_id(*, campaign: Campaign, rater: AbstractBaseUser) -> int | None:
    """The item the rater graded or skipped last: where Back goes without JavaScript (the
    grade when both came at the same moment)."""
    with connection.cursor() as cursor:
        cursor.execute(_LAST_TOUCHED, [campaign.pk, rater.pk, campaign.pk, rater.pk])
        rows = sorted(cursor.fetchall())  # the grade's row first
    latest = max(rows, key=lambda row: aware(row[2]), default=None)
    return latest[1] if latest else None


def rater_history(*, campaign: Campaign, rater: AbstractBaseUser) -> QuerySet[Grade]:
    """The rater's own grades in this campaign, latest first, with their earlier values."""
    return (
        Grade.objects.filter(pool_item__campaign=campaign, rater=rater)
        .select_related("label", "pool_item__query", "pool_item__document")
        .prefetch_related(
            Prefetch(
                "history",
                queryset=GradeChange.objects.select_related("label").order_by("-replaced_at"),
            )
        )
        .order_by("-changed_at", "-pk")
    )


def rater_skips(*, campaign: Campaign, rater: AbstractBaseUser) -> list:
    """The items the rater skipped in this campaign, latest first, each with what the rater
    may see of it (`shown`): listed beside their grades, where a skip can be undone."""
    skips = (
        Skip.objects.filter(pool_item__campaign=campaign, rater=rater)
        .select_related("pool_item__query", "pool_item__document")
        .order_by("-created_at", "-pk")
    )
    out = list(skips)
    for skip in out:
        skip.shown = item_payload(skip.pool_item, rater)
    return out
