"""JSON bodies, strictly (common.strict_json: UTF-8, no NaN or Infinity, no lone
surrogates, no nesting past the recursion limit), and a clear error naming what is wrong.

The size limit is Django's DATA_UPLOAD_MAX_MEMORY_SIZE, checked before the body is read; the
exception handler answers it with 413.
"""

from rest_framework import parsers

from common import strict_json
from common.contract import errors as contract
from ecommerce.core.errors import ApiError


class StrictJSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        try:
            return strict_json.loads(raw)
        except strict_json.NotJson as exc:
            raise ApiError(400, contract.MALFORMED_JSON, contract.not_json(str(exc))) from None
