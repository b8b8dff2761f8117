"""Opaque per-rater handles for the tasks a rater sees, in place of database ids (#24).

Database ids carry the order rows were made in, and pool items used to be made in an order
that reproduced a run's ranking; a rater who sorts a query's items by id must learn nothing.
So every face a rater sees (pages, their JSON, URLs, storage keys, the REST API's rater-facing
endpoints) names a task by a handle: the task id under a keyed pseudorandom permutation of
64-bit numbers, a four-round Feistel network whose round function is HMAC-SHA256 keyed by a
key derived from SECRET_KEY, the task kind and the rater. Without the server's secret a handle
says nothing of the id, nor of another rater's handle for the same task; the server turns a
handle back into its id without a table (the permutation is invertible).

Answers sent under the old numeric ids (waiting in a rater's offline outbox when this version
was deployed) are taken for the leases held at that moment only (`legacy` on the lease, set by
migration 0017): the rater saw those ids already, and no new lease has one.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import re

from django.conf import settings

GRADED = "graded"
SXS = "sxs"

_ROUNDS = 4
_MASK32 = 0xFFFFFFFF
_HANDLE = re.compile(r"^[A-Za-z0-9_-]{11}$")
# A numeric id of an answer sent before handles (JSON number or decimal text).
_LEGACY = re.compile(r"^[0-9]{1,19}$")
_MAX_ID = 2**63 - 1


@functools.cache
def _root_key(secret: str) -> bytes:
    return hmac.new(secret.encode(), b"annotate.judging.handles", hashlib.sha256).digest()


def secret_key(purpose: str, *parts: object) -> bytes:
    """A key for one purpose (handles, an order, a storage key), derived from SECRET_KEY."""
    message = ":".join([purpose, *map(str, parts)]).encode()
    return hmac.new(_root_key(settings.SECRET_KEY), message, hashlib.sha256).digest()


@functools.lru_cache(maxsize=4096)
def _rounds(kind: str, rater_id: int, secret: str) -> tuple:
    key = hmac.new(_root_key(secret), f"handle:{kind}:{rater_id}".encode(), hashlib.sha256)
    return tuple(_round_mac(key, i) for i in range(_ROUNDS))


def _round_mac(key: hmac.HMAC, i: int) -> hmac.HMAC:
    mac = key.copy()
    mac.update(bytes([i]))
    return mac


def _f(mac: hmac.HMAC, half: int) -> int:
    step = mac.copy()
    step.update(half.to_bytes(4, "big"))
    return int.from_bytes(step.digest()[:4], "big")


def handle_for(rater_id: int, kind: str, task_id: int) -> str:
    """The rater's handle for a task: 11 url-safe characters."""
    rounds = _rounds(kind, rater_id, settings.SECRET_KEY)
    left, right = task_id >> 32 & _MASK32, task_id & _MASK32
    for mac in rounds:
        left, right = right, left ^ _f(mac, right)
    raw = (left << 32 | right).to_bytes(8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def task_id_for(rater_id: int, kind: str, handle: object) -> int | None:
    """The task id a rater's handle names; None for anything that is not one of theirs' form
    (whether the task exists and is the rater's is for the caller to find out)."""
    if not isinstance(handle, str) or not _HANDLE.match(handle):
        return None
    try:
        raw = base64.urlsafe_b64decode(handle + "=")
    except (binascii.Error, ValueError):
        return None
    value = int.from_bytes(raw, "big")
    left, right = value >> 32, value & _MASK32
    for mac in reversed(_rounds(kind, rater_id, settings.SECRET_KEY)):
        left, right = right ^ _f(mac, left), left
    task_id = left << 32 | right
    return task_id if 0 < task_id <= _MAX_ID else None


def looks_like_reference(value: str) -> bool:
    """Whether a form's value has the shape of a handle or of an old numeric id."""
    return bool(_HANDLE.match(value) or _LEGACY.match(value.strip()))


def legacy_id(value: object) -> int | None:
    """A numeric id as sent before handles (deprecated), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 < value <= _MAX_ID else None
    if isinstance(value, str) and _LEGACY.match(value.strip()):
        number = int(value.strip())
        return number if 0 < number <= _MAX_ID else None
    return None


def storage_key(prefix: str, rater_id: int, *scope: object) -> str:
    """A browser storage key that is the rater's own without naming the rater: a keyed hash."""
    digest = hmac.new(secret_key("storage", rater_id, *scope), b"", hashlib.sha256).digest()
    tag = base64.urlsafe_b64encode(digest[:12]).rstrip(b"=").decode()
    return ":".join([prefix, *map(str, scope), tag])


def order_key(rater_id: int, kind: str, task_id: int) -> bytes:
    """A per-rater order of a query's tasks, keyed by the server's secret: neither the ids'
    order (the pooling order) nor anything a rater could compute."""
    return hmac.new(secret_key("order", kind, rater_id), str(task_id).encode(), "sha256").digest()
