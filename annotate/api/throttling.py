"""Throttling for scripts: a token's requests are counted per user, the browser's are not.

The counters live in Django's cache (per process with the default local-memory cache; set a
shared cache such as Redis in production for one limit across workers).
"""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.throttling import UserRateThrottle


class TokenRateThrottle(UserRateThrottle):
    scope = "token"

    def get_cache_key(self, request: Request, view) -> str | None:
        if request.auth is None:  # a session (the web UI) or nobody: not this throttle's
            return None
        return super().get_cache_key(request, view)
