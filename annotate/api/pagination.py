"""Pagination: cursor pagination for the large lists (grades, run entries, pool items), whose
pages stay as fast at row 1,000,000 as at row 1 and never skip or repeat a row while rows are
added; page numbers elsewhere."""

from __future__ import annotations

from rest_framework.pagination import CursorPagination


class IdCursorPagination(CursorPagination):
    # The primary key: unique and never changing, so the order is stable.
    ordering = ("id",)
    page_size = 500
    page_size_query_param = "page_size"
    max_page_size = 5000
