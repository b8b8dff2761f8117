"""What a deployment lets managers point a judge at: which environment variables may hold
the API key (LLMJUDGE_KEY_VARIABLES, or a name starting with LLMJUDGE_KEY_) and which
endpoints may be used (LLMJUDGE_ENDPOINTS, prefixes; empty: any). Checked when a judge is
saved and again when a run starts, since the settings may have changed in between."""

from __future__ import annotations

from django.conf import settings

KEY_PREFIX = "LLMJUDGE_KEY_"


def key_variable_problem(name: str) -> str:
    """Why ``name`` may not hold a judge's key ("" when it may)."""
    if not name or name.startswith(KEY_PREFIX) or name in settings.LLMJUDGE_KEY_VARIABLES:
        return ""
    listed = ", ".join(settings.LLMJUDGE_KEY_VARIABLES)
    also = f" or one of {listed}" if listed else ""
    return (
        f"{name} may not be used: name a variable starting with {KEY_PREFIX}{also} (the key "
        "is sent to the endpoint, so other variables of the server stay out of reach)"
    )


def endpoint_problem(base_url: str) -> str:
    """Why ``base_url`` may not be used ("" when it may)."""
    allowed = settings.LLMJUDGE_ENDPOINTS
    if not allowed or any(base_url.startswith(prefix) for prefix in allowed):
        return ""
    return f"this server allows only these endpoints: {', '.join(allowed)}"
