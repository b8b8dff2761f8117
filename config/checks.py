"""The project's own `check --deploy` warnings: settings whose default is right on a laptop
and wrong behind the reverse proxy the README's Deploying section asks for."""

from __future__ import annotations

import os

from django.core.checks import CheckMessage, Tags, Warning, register

PROXIES_UNSET = "config.W001"


@register(Tags.security, deploy=True)
def trusted_proxies_set(app_configs=None, **kwargs) -> list[CheckMessage]:
    """With API_TRUSTED_PROXIES at 0 every visitor behind a proxy has the proxy's address, so
    five wrong passwords from anyone lock the sign-in address of everyone (django-axes), and
    the API's anonymous rate limit is one for the whole world. Only when it is left unset: an
    explicit 0 says the app serves visitors directly, and a warning there would be noise."""
    if os.environ.get("API_TRUSTED_PROXIES", "").strip():
        return []
    return [
        Warning(
            "API_TRUSTED_PROXIES is not set: the connection's address is taken as the visitor's.",
            hint=(
                "Behind a reverse proxy set API_TRUSTED_PROXIES to the number of proxies, or "
                "failed sign-ins from one visitor lock out every visitor (they all have the "
                "proxy's address). Serving visitors directly, set it to 0."
            ),
            id=PROXIES_UNSET,
        )
    ]
