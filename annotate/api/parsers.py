"""The API's JSON parser: DRF's, with the project's safe JSON reading (annotate.inputs.loads),
so a body with NaN, an overflowing number, NUL, a lone surrogate or deep nesting is a 400
that says what is wrong, never a 500 from the database or the recursion limit."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from annotate import inputs


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        try:
            raw = stream.read() if stream is not None else b""
            return inputs.loads(raw.decode(encoding))
        except UnicodeDecodeError:
            raise ParseError(f"JSON parse error - the body is not valid {encoding}") from None
        except inputs.BadInput as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
