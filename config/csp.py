"""Content-Security-Policy (django-csp builds the header from settings.CONTENT_SECURITY_POLICY).

The pages load scripts, styles, fonts and images from this site only. The one widening is
per campaign: the judging pages (and the settings preview) may show the guidelines' images
from the hosts the campaign's managers allow; the view says which through
``request.csp_image_hosts`` (annotate.services.markdown.guidelines_html)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


class CampaignImageHostsMiddleware:
    """Listed after django-csp's middleware, so its response step runs first and the policy
    django-csp then writes has the campaign's image hosts in img-src."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        hosts = getattr(request, "csp_image_hosts", None)
        if hosts:
            response._csp_update = {"img-src": list(hosts)}  # type: ignore[attr-defined]
        return response
