"""Posting a settings form as a person would: what the page shows, with some fields changed."""

from __future__ import annotations

from django.test import Client


def form_as_shown(client: Client, url: str) -> dict:
    """The values of the form the page at ``url`` shows (its initial data, None left out)."""
    form = client.get(url).context["form"]
    return {k: v for k, v in form.initial.items() if v is not None}
