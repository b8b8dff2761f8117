"""The secrets of one-time links (invitations, password resets): 256 random bits, sent once and
stored only as a SHA-256 digest."""

from __future__ import annotations

import hashlib
import secrets


def link_secret() -> tuple[str, str]:
    """A new secret for a link and the digest to store."""
    secret = secrets.token_urlsafe(32)
    return secret, link_digest(secret)


def link_digest(secret: str) -> str:
    # The secret has 256 random bits: a fast hash is enough (there is nothing to guess), and
    # a lookup by digest compares digests, not secrets, so its timing tells nothing useful.
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()
