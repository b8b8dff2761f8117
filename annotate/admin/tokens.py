"""Admin for API token names: superusers only, read-only.

A token's name belongs to a user, not to a campaign, so no campaign scoping can narrow it for a
staff manager: they do not see it at all. Names are given and tokens revoked on the token page
(annotate.views.tokens); the admin only shows them, since a name without its token means nothing
and the token itself is shown once, at creation.
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from annotate import models as m


@admin.register(m.TokenName)
class TokenNameAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "token_start", "created", "expiry")
    search_fields = ("name", "user__username")
    list_select_related = ("user", "token")
    readonly_fields = ("token", "user", "name")

    @admin.display(description=_("token starts with"))
    def token_start(self, obj: m.TokenName) -> str:
        return obj.token.token_key

    @admin.display(description=_("created"), ordering="token__created")
    def created(self, obj: m.TokenName):
        return obj.token.created

    @admin.display(description=_("expires"), ordering="token__expiry")
    def expiry(self, obj: m.TokenName):
        return obj.token.expiry

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
