"""Throttling for scripts: a token's requests are counted per user, the browser's are not.

The counters live in the "throttle" cache (settings.CACHES, THROTTLE_CACHE_URL), never in the
default one: that is local memory, one per process, so with four gunicorn workers a client
would get four times its limit. The default file cache is shared by the processes of one
machine; point THROTTLE_CACHE_URL at Redis to share it between machines.

DRF reads a client's history and writes it back, not atomically (with Redis too): two workers
checking the same client at the same instant may both read the same history, and one count is
lost. A client firing many requests at once can so get a few past its limit.
"""

from __future__ import annotations

from django.core.cache import caches
from django.utils.connection import ConnectionProxy
from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

THROTTLE_CACHE = "throttle"

# Resolved on each use, like django.core.cache.cache: cache connections are per thread, and
# tests swap the cache under the throttles.
shared_counters = ConnectionProxy(caches, THROTTLE_CACHE)


class AnonThrottle(AnonRateThrottle):
    cache = shared_counters


class TokenRateThrottle(UserRateThrottle):
    scope = "token"
    cache = shared_counters

    def get_cache_key(self, request: Request, view) -> str | None:
        if request.auth is None:  # a session (the web UI) or nobody: not this throttle's
            return None
        return super().get_cache_key(request, view)
