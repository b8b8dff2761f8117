"""Admin for invitations, password-reset links and preferences: superusers only, read-only.

Invitations belong to a campaign, but their links are made, revoked and listed on the
campaign's Invitations page, where the managers are; links are stored only as digests, so the
admin could not show one anyway. This is the superuser's view across all campaigns.
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from annotate import models as m


class _SuperuserReadOnly(admin.ModelAdmin):
    exclude = ("digest",)

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return [f.name for f in self.model._meta.fields if f.name not in self.exclude]

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


@admin.register(m.Invitation)
class InvitationAdmin(_SuperuserReadOnly):
    list_display = ("name", "email", "campaign", "role", "state_shown", "created_by", "expires_at")
    list_filter = ("role",)
    search_fields = ("name", "email", "campaign__name", "accepted_by__username")
    list_select_related = ("campaign", "created_by")

    # The state's label, not its value: "pending" would be English on a Chinese page.
    @admin.display(description=_("State"))
    def state_shown(self, obj: m.Invitation) -> str:
        return m.InvitationState(obj.state).label


@admin.register(m.PasswordResetLink)
class PasswordResetLinkAdmin(_SuperuserReadOnly):
    list_display = ("user", "created_by", "created_at", "expires_at", "used_at")
    search_fields = ("user__username",)
    list_select_related = ("user", "created_by")


@admin.register(m.Preferences)
class PreferencesAdmin(_SuperuserReadOnly):
    exclude = ()
    list_display = ("user", "csv_bom")
    search_fields = ("user__username",)
