"""The OpenAPI schema as a generated client needs it: one media type per operation, every error
status an operation can answer, integer ids, and a global security requirement.

Generators (openapi-python-client, openapi-typescript) keep one content type per status and
parse the body by it, so an operation that answers JSON or CSV depending on ``?format=`` cannot
be described truthfully. Each table is therefore also its own operation at a sibling path with
the format as suffix (``/grades.csv``, ``/campaigns/{slug}/qrels.json``), made by
``media_variant``; the original path is described as JSON (or, for qrels, as TREC text, its
default). ``?format=`` and ``Accept`` still work as before; they are simply not what the
schema describes.
"""

from __future__ import annotations

from django.urls import URLPattern, path
from drf_spectacular.openapi import AutoSchema

from annotate.api.serializers import ID_REGEX, ErrorSerializer

JSON = "application/json"
MEDIA_TYPES = {"json": JSON, "csv": "text/csv", "trec": "text/plain"}
TEXT_BODIES = {
    "csv": "A CSV table, UTF-8, with a header row naming every column; nested values are "
    "flattened to dotted column names (values.ndcg_cut_10.mean).",
    "trec": "TREC qrels, one `query 0 document grade` line per label.",
}
# The errors every operation may answer, whatever else it documents.
ALWAYS = {
    "401": "No valid credentials: send `Authorization: Token <key>`.",
    "429": "Too many requests (a token may make 6,000 a minute): wait the seconds Retry-After "
    "says.",
}
BAD_INPUT = (
    "Bad input: `detail` says what, `errors` which fields; an upload's also names the "
    "`file`, `line` and `reason`."
)
NOT_FOUND = "Nothing of that id or slug for the caller (or an invalid cursor)."
FORBIDDEN = "The caller may not do this (or a browser session sent no CSRF token)."
RETRY_AFTER = {
    "description": "Seconds to wait before the next request.",
    "schema": {"type": "integer"},
}
LARGEST_ID = 10**18 - 1  # ids in paths have at most 18 digits (ID_REGEX)


def media_variant(view_class: type, fmt: str) -> type:
    """The view answering in one format whatever the request asks (the ``.csv`` paths): the
    path wins over ``?format=`` and over ``Accept``, which a client may send for all calls."""

    def get_format_suffix(self, **kwargs) -> str:
        return fmt

    def perform_content_negotiation(self, request, force: bool = False) -> tuple:
        renderer = next(r for r in self.get_renderers() if r.format == fmt)
        return renderer, renderer.media_type

    return type(
        f"{view_class.__name__}{fmt.title()}",
        (view_class,),
        {
            "media_variant": fmt,
            "get_format_suffix": get_format_suffix,
            "perform_content_negotiation": perform_content_negotiation,
            "__doc__": view_class.__doc__,
            "__module__": view_class.__module__,
        },
    )


def variant_path(
    route: str, view_class: type, fmt: str, name: str, actions: dict | None = None
) -> URLPattern:
    variant = media_variant(view_class, fmt)
    view = variant.as_view(actions) if actions is not None else variant.as_view()
    return path(route, view, name=name)


class ContractSchema(AutoSchema):
    @property
    def _format(self) -> str:
        return getattr(self.view, "media_variant", None) or getattr(
            self.view, "schema_format", "json"
        )

    def map_renderers(self, attribute: str) -> list:
        fmt = self._format
        return [MEDIA_TYPES[fmt] if attribute == "media_type" else fmt]

    def get_operation_id(self) -> str:
        # grades.csv -> grades_csv_list: a valid identifier in every generator.
        return super().get_operation_id().replace(".", "_")

    def get_tags(self) -> list[str]:
        # grades.csv is tagged as grades: a generator puts both in one module.
        return [tag.split(".")[0] for tag in super().get_tags()]

    def _get_paginator(self):
        # A text variant streams every row: no pages, no cursor.
        return None if self._format != "json" else super()._get_paginator()

    def _get_response_bodies(self, direction: str = "response") -> dict:
        fmt = self._format
        responses = super()._get_response_bodies(direction)
        if fmt == "json":
            return responses
        text = {
            "description": TEXT_BODIES[fmt],
            "content": {MEDIA_TYPES[fmt]: {"schema": {"type": "string"}}},
        }
        return {
            "200": text,
            **{code: body for code, body in responses.items() if not code.startswith("2")},
        }

    def get_operation(self, *args, **kwargs) -> dict | None:
        operation = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        parameters = operation.get("parameters", [])
        for parameter in parameters:
            _integer_id(parameter)
        wanted = dict(ALWAYS)
        if "{" in self.path or any(p["name"] == "cursor" for p in parameters):
            wanted["404"] = NOT_FOUND
        if "requestBody" in operation or any(p["in"] == "query" for p in parameters):
            wanted["400"] = BAD_INPUT
        if self.method == "POST":
            wanted["403"] = FORBIDDEN
        error = self.resolve_serializer(ErrorSerializer, "response").ref
        responses = operation["responses"]
        for code, response in responses.items():
            # Refusals are JSON whatever format was asked for (annotate.api.errors).
            if not code.startswith("2") and response.get("content"):
                response["content"] = {JSON: next(iter(response["content"].values()))}
        for code, text in wanted.items():
            responses.setdefault(code, {"description": text, "content": {JSON: {"schema": error}}})
        responses["429"].setdefault("headers", {"Retry-After": RETRY_AFTER})
        operation["responses"] = dict(sorted(responses.items()))
        return operation


def _integer_id(parameter: dict) -> None:
    """Path ids as the integers the bodies carry, not as strings with a pattern."""
    if parameter["in"] == "path" and parameter["schema"].get("pattern") == f"^{ID_REGEX}$":
        parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": LARGEST_ID}


def global_security(result: dict, generator, request, public) -> dict:
    """A postprocessing hook: the security requirement for the whole API, and the token
    scheme's prefix said where generators and people look for it."""
    schemes = result.get("components", {}).get("securitySchemes", {})
    if "knoxApiToken" in schemes:
        schemes["knoxApiToken"]["description"] = (
            "A token from the API tokens page, sent as `Authorization: Token <key>`: the word "
            "Token (not Bearer), a space, the key. In a client generated by "
            'openapi-python-client: `AuthenticatedClient(base_url, token=key, prefix="Token")`.'
        )
    result["security"] = [{name: []} for name in schemes]
    return result
