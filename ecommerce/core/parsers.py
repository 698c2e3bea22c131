"""JSON bodies, strictly: UTF-8, no NaN or Infinity (Python's json accepts them, no other
client produces them), and a clear error naming what is wrong.

The size limit is Django's DATA_UPLOAD_MAX_MEMORY_SIZE, checked before the body is read; the
exception handler answers it with 413.
"""

import json

from rest_framework import parsers

from ecommerce.core.errors import ApiError


class StrictJSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        try:
            return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ApiError(400, "malformed_json", f"The body is not valid JSON: {exc}") from None


def _reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")
