"""Writes: small functions named <thing>_<action> with keyword-only typed arguments."""
