"""JSON bodies, strictly (ecommerce.core.strict_json: UTF-8, no NaN or Infinity, no lone
surrogates, no nesting past the recursion limit), and a clear error naming what is wrong.

The size limit is Django's DATA_UPLOAD_MAX_MEMORY_SIZE, checked before the body is read; the
exception handler answers it with 413.
"""

from rest_framework import parsers

from ecommerce.core import strict_json
from ecommerce.core.errors import ApiError


class StrictJSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        try:
            return strict_json.loads(raw)
        except strict_json.NotJson as exc:
            raise ApiError(400, "malformed_json", f"The body is not valid JSON: {exc}") from None
