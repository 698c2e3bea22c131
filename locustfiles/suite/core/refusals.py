"""Failed answers the services meant: a 503 or a 429 in their JSON error shape
(common.contract.errors), which tells the client to come back after Retry-After.

Past capacity a service refuses new work at once with 503 ``overloaded`` (common/shedding.py),
and the LMS passes ecommerce's refusal on as 503 ``ecommerce_unavailable`` with ecommerce's
answer inside; a learner who buys too often is answered 429. Locust counts all of them as
failures, like a timeout or a 500; the report tells them apart: a refusal is labelled with its
error code (``overloaded``, ``ecommerce_unavailable: overloaded``), and a refusal whose code says
overloaded is *shed*. Any other failure, an HTML 502, a 500, a connection reset, a timeout, is
*unshed*: the ``unshed`` threshold is their share of all requests (the overload profile asks
for less than 1 %).
"""

import json

from common.contract import errors

STATUSES = (429, 503)


def code(status: int, text: str | None) -> str | None:
    """The error code of a JSON refusal (the inner service's after a colon, when the answer
    carries ecommerce's), or None when the answer is not one."""
    if status not in STATUSES or not text:
        return None
    try:
        body = json.loads(text)
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("error"), str):
        return None
    inner = body.get("ecommerce")
    if isinstance(inner, dict) and isinstance(inner.get("error"), str):
        return f"{body['error']}: {inner['error']}"
    return body["error"]


def is_shed(refusal: str) -> bool:
    """A refusal (``"503 overloaded"``, as the recorder keys them) of a service past its limit."""
    return refusal.rsplit(" ", 1)[-1] == errors.OVERLOADED.code


def label(refusal: str) -> str:
    """How the report names a refusal: ``"503 ecommerce_unavailable: overloaded"`` ->
    ``"503 shed (ecommerce_unavailable: overloaded)"``."""
    status, _, what = refusal.partition(" ")
    return f"{status} {'shed' if is_shed(refusal) else 'refused'} ({what})"
