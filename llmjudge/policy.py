"""What a deployment lets managers point a judge at: which environment variables may hold
the API key (LLMJUDGE_KEY_VARIABLES, or a name starting with LLMJUDGE_KEY_) and which
endpoints may be used (LLMJUDGE_ENDPOINTS, prefixes; empty: any). Checked when a judge is
saved and again when a run starts, since the settings may have changed in between."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _

KEY_PREFIX = "LLMJUDGE_KEY_"


def key_variable_problem(name: str) -> str:
    """Why ``name`` may not hold a judge's key ("" when it may)."""
    if not name or name.startswith(KEY_PREFIX) or name in settings.LLMJUDGE_KEY_VARIABLES:
        return ""
    listed = ", ".join(settings.LLMJUDGE_KEY_VARIABLES)
    values = {"name": name, "prefix": KEY_PREFIX, "listed": listed}
    if listed:
        return (
            _(
                "%(name)s may not be used: name a variable starting with %(prefix)s or one of "
                "%(listed)s (the key is sent to the endpoint, so other variables of the server "
                "stay out of reach)"
            )
            % values
        )
    return (
        _(
            "%(name)s may not be used: name a variable starting with %(prefix)s (the key is sent "
            "to the endpoint, so other variables of the server stay out of reach)"
        )
        % values
    )


def endpoint_problem(base_url: str) -> str:
    """Why ``base_url`` may not be used ("" when it may)."""
    allowed = settings.LLMJUDGE_ENDPOINTS
    if not allowed or any(base_url.startswith(prefix) for prefix in allowed):
        return ""
    return _("this server allows only these endpoints: %(endpoints)s") % {
        "endpoints": ", ".join(allowed)
    }
