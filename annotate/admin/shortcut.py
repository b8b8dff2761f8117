"""The admin's "view on site" shortcut (/admin/r/<content type>/<id>/), scoped like the rest
of the admin. Django's own redirects any staff user to any object's page, so the Location
header told a manager the slug of a campaign they do not manage. Here a staff user who is not a
superuser gets the redirect only for rows of the campaigns they manage, and 404 otherwise."""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.contenttypes.models import ContentType
from django.contrib.contenttypes.views import shortcut
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest, HttpResponse

from annotate.admin.scoping import CAMPAIGN_PATHS, campaign_id_of, managed_campaign_ids


@staff_member_required
def scoped_shortcut(request: HttpRequest, content_type_id: int, object_id: str) -> HttpResponse:
    ids = managed_campaign_ids(request)
    if ids is not None:
        try:
            model = ContentType.objects.get_for_id(content_type_id).model_class()
            obj = model._default_manager.get(pk=object_id) if model in CAMPAIGN_PATHS else None
        except (ObjectDoesNotExist, ValueError, TypeError, AttributeError):
            obj = None
        if obj is None or campaign_id_of(obj) not in ids:
            raise Http404("No such object.")
    return shortcut(request, content_type_id, object_id)
