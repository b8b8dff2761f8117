"""One pagination style for every list: a cursor over a unique, never-changing key. Pages stay
as fast at row 1,000,000 as at row 1 and never skip or repeat a row while rows are added, and a
generated client pages every list the same way (follow ``next`` until it is null)."""

from __future__ import annotations

from rest_framework.pagination import CursorPagination

PAGE_SIZE = 500
MAX_PAGE_SIZE = 5000


class IdCursorPagination(CursorPagination):
    # The primary key: unique and never changing, so the order is stable.
    ordering = ("id",)
    page_size = PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    cursor_query_description = "Opaque: copy it from the `next` or `previous` link of a page."
    page_size_query_description = (
        f"Rows per page: {PAGE_SIZE} unless given; at most {MAX_PAGE_SIZE} (a larger number "
        "is cut to it)."
    )

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=MAX_PAGE_SIZE, default=PAGE_SIZE)
        return parameters

    def get_paginated_response_schema(self, schema: dict) -> dict:
        # Both links are always present (null at either end): required, so a generated client
        # types them as "str | None", not as maybe-missing.
        out = super().get_paginated_response_schema(schema)
        out["required"] = ["next", "previous", "results"]
        return out


class SlugCursorPagination(IdCursorPagination):
    """Campaigns, in slug order (unique and never changed)."""

    ordering = ("slug",)
