"""Admin for the qualification quiz's records: attempts, answers and grants, read-only (the
quiz's pages and the manager's grant write them; a record edited by hand proves nothing)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from annotate import models as m
from annotate.admin.scoping import ScopedAdmin


class QuizRecordAdmin(ScopedAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(m.QuizAttempt)
class QuizAttemptAdmin(QuizRecordAdmin):
    list_display = ("rater", "campaign", "comparison", "correct", "passed", "started_at")
    list_filter = ("passed",)
    search_fields = ("rater__username", "campaign__name", "comparison__name")
    list_select_related = ("rater", "campaign", "comparison")
    raw_id_fields = ("rater", "campaign", "comparison")
    date_hierarchy = "started_at"


@admin.register(m.QuizAnswer)
class QuizAnswerAdmin(QuizRecordAdmin):
    list_display = ("attempt", "position", "pool_item", "task", "label", "chosen", "correct")
    list_filter = ("correct",)
    search_fields = ("attempt__rater__username", "attempt__campaign__name")
    list_select_related = ("attempt", "pool_item", "task", "label")
    raw_id_fields = ("attempt", "pool_item", "task", "label")


@admin.register(m.QuizGrant)
class QuizGrantAdmin(QuizRecordAdmin):
    list_display = ("rater", "campaign", "comparison", "manager", "created_at")
    search_fields = ("rater__username", "campaign__name")
    list_select_related = ("rater", "campaign", "comparison", "manager")
    raw_id_fields = ("rater", "campaign", "comparison", "manager")
