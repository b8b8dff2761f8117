"""What the navigation may show to the signed-in user."""

from __future__ import annotations

from django.http import HttpRequest

from annotate.models import Role
from annotate.selectors import user_roles


def navigation(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_is_rater": False, "nav_is_manager": False}
    roles = user_roles(user)
    return {"nav_is_rater": Role.RATER in roles, "nav_is_manager": Role.MANAGER in roles}
