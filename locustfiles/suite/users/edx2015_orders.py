"""The suite's side of a run of edX's 2015 client (make edx2015), kept out of the client's files.

The 2015 client reads no answer it does not need, so the order numbers the audit needs are
read here, from Locust's request events, as answers to two purchases:

* the free one, the LMS's ``POST /api/commerce/v0/baskets/``: its 2xx answer names the order;
* the paid one, the processor's ``POST /payment/cybersource/notify/``: a 2xx answer means
  ecommerce placed the order the notification names in ``req_reference_number`` (the client
  worked the number out itself and sends it there).

locustfiles/edx2015_hooks.py, which a run loads beside the client's locustfile, attaches it;
make run's start form adds it for the edx2015 runs it starts.
Its names are core/names.py's; what a run of the client comes to is figures/edx2015_client.py's.
"""

import time
from urllib.parse import parse_qs

from locustfiles.suite.core.names import FREE_PURCHASE, PURCHASES, SUCCESS_FOR_AUDIT


def order_number(name: str, response) -> str | None:
    """The order a purchase answer placed, or None (not a purchase, not 2xx, or no number)."""
    if name not in PURCHASES or getattr(response, "status_code", 0) not in SUCCESS_FOR_AUDIT:
        return None
    if name == FREE_PURCHASE:
        try:
            number = response.json()["order"]["number"]
        except (ValueError, KeyError, TypeError):
            return None
        return number if isinstance(number, str) else None
    body = response.request.body if response.request is not None else None
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    numbers = parse_qs(body or "").get("req_reference_number", [])
    return numbers[0] if len(numbers) == 1 else None


def recorder(environment):
    """A request listener that records the order number of every purchase answered 2xx, for
    the run object hooks.py made at init. make run's start form adds it for an edx2015 run only
    and takes it away when that run stops (run/start_form.py): make run's own learners record
    their purchases themselves, and a second record of one would be a duplicate in the audit."""

    def record(name, response=None, exception=None, start_time=None, **_):
        run = getattr(environment, "suite", None)
        number = order_number(name, response) if exception is None and run is not None else None
        if number is not None:
            run.answered(number, start_time if start_time is not None else time.time())

    return record


def attach(environment, **_) -> None:
    """Locust's init listener (make edx2015): the recorder, for the whole process."""
    environment.events.request.add_listener(recorder(environment))
