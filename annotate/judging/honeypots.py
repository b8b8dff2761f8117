"""Hidden honeypots: whole gold queries mixed at random into a rater's queue.

The walk to the next query (leasing.lease_next_query) never offers gold (open.py); before it
walks, a draw with the campaign's `honeypot_share` decides whether this query is a honeypot.
If so, and some honeypot query is left that the rater has neither answered, skipped nor held,
one of them, at random, is leased to the rater through the same lease insert as real work, and
served on the same page and the same replies: nothing the rater receives tells them apart but
the content. Gold is not capped by the answers a task needs (they do not count), so it is
served to every rater who draws it, and to each at most once.

A honeypot query is one whose every task (in the scope, identical side-by-side pairs left
out as they are from real work) is honeypot gold; quiz gold is never served here, so the quiz
cannot teach a rater the honeypots.
"""

from __future__ import annotations

import functools
import random
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction

from annotate.judging.kinds import TaskKind
from annotate.models import GoldPurpose

# Not predictable from outside: a rater must not learn when a honeypot is due.
_draw = random.SystemRandom()

# Starts from the gold rows (few) rather than the scope's tasks (a million, in a big campaign):
# queries with honeypot gold, none of whose tasks is real work or other gold, that the rater
# has not met.
_HONEYPOT_QUERY = """
SELECT p.query_id
FROM {gold} g
INNER JOIN {task} p ON p.id = g.{gfk}
WHERE g.purpose = %s AND p.{scope} = %s
    AND NOT EXISTS (
        SELECT 1 FROM {task} t
        LEFT JOIN {gold} tg ON tg.{gfk} = t.id AND tg.purpose = %s
        WHERE t.query_id = p.query_id AND t.{scope} = p.{scope} AND tg.id IS NULL{where_t}
    )
    AND p.query_id NOT IN (
        SELECT t.query_id FROM {answer} a INNER JOIN {task} t ON t.id = a.{afk}
        WHERE a.rater_id = %s AND t.{scope} = %s
        UNION ALL
        SELECT t.query_id FROM {skip} s INNER JOIN {task} t ON t.id = s.{afk}
        WHERE s.rater_id = %s AND t.{scope} = %s
        UNION ALL
        SELECT t.query_id FROM {lease} l INNER JOIN {task} t ON t.id = l.{lfk}
        WHERE l.rater_id = %s AND t.{scope} = %s
    )
GROUP BY p.query_id
ORDER BY RANDOM()
LIMIT 1
"""


@functools.cache
def _query_sql(kind: TaskKind) -> str:
    c = kind.counters
    return _HONEYPOT_QUERY.format(
        task=c.task_table,
        gold=kind.gold_table,
        gfk=kind.gold_fk,
        scope=kind.scope_column,
        # The kind's own conditions on an open task (side-by-side: not identical), on `t`.
        where_t=kind.open_where.replace("p.", "t."),
        answer=c.answer_table,
        afk=c.answer_fk,
        skip=kind.skip_model._meta.db_table,
        lease=c.lease_table,
        lfk=c.lease_fk,
    )


def honeypot_due(kind: TaskKind, scope: Any) -> bool:
    """Whether the next query a rater is leased is to be a honeypot (when one is left)."""
    campaign = kind.campaign(scope)
    share = campaign.honeypot_share
    return campaign.honeypot_gold > 0 and share > 0 and _draw.random() < share


def honeypot_query(kind: TaskKind, *, scope: Any, rater: AbstractBaseUser) -> int | None:
    """A honeypot query, at random, that this rater has not met yet."""
    honeypot = GoldPurpose.HONEYPOT
    params = [honeypot, scope.pk, honeypot, *[rater.pk, scope.pk] * 3]
    with connection.cursor() as cursor:
        cursor.execute(_query_sql(kind), params)
        row = cursor.fetchone()
    return row[0] if row else None


@transaction.atomic
def lease_honeypot(kind: TaskKind, *, scope: Any, rater: AbstractBaseUser, now: datetime) -> list:
    """Lease the tasks of a honeypot query to the rater, as a real query's are leased (each
    with `lease_started`); empty when none is left for them."""
    from annotate.judging.leasing import leases_upsert

    query_id = honeypot_query(kind, scope=scope, rater=rater)
    if query_id is None:
        return []
    c = kind.counters
    sql = (
        f"SELECT {kind.row_columns} FROM {c.task_table} p{kind.row_joins} "
        f"WHERE p.{kind.scope_column} = %s AND p.query_id = %s AND p.gold{kind.open_where} "
        "ORDER BY p.id"
    )
    # Other raters lease the same gold at the same time, and each lease's trigger updates its
    # task's counters: locked first, in id order, two such leases wait rather than deadlock.
    # Not SKIP LOCKED as real work is: a honeypot query is leased whole or not at all.
    if connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF p"
    with connection.cursor() as cursor:
        cursor.execute(sql, [scope.pk, query_id])
        tasks = [kind.from_row(scope, row) for row in cursor.fetchall()]
    if tasks:
        leases_upsert(kind, scope, tasks, rater, now)
    return tasks
