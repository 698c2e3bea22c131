"""The OpenAPI 3 document of the LMS stand-in, written by hand (lms_stub is plain Django, so
there is nothing to generate it from) and served at GET /api/schema/.

It is built at each call from the running settings (body limit, catalogue size, cookie names,
which load-test machinery is routed) and the wire contract (common/contract), so it says what
this process does; tests/schema fuzzes the running service against it. One module per area of
the API gives that area's paths; components.py the schemas they refer to; answers.py what the
areas share.
"""

from django.conf import settings

from lms_stub.openapi import commerce, enrollment, faults, health, learners, processor
from lms_stub.openapi.components import components

INFO = {
    "title": "LMS stand-in (lms_stub)",
    "version": "1",
    "description": (
        "The LMS side of the order loop: learners, the commerce endpoint that asks ecommerce "
        "for an order, the enrollment API ecommerce calls back, fault injection, and a "
        "stand-in for the payment processor. Every error answer has one shape "
        "(components/schemas/Error)."
    ),
}


def document() -> dict:
    return {"openapi": "3.0.3", "info": INFO, "paths": described_paths(), "components": components()}


def described_paths() -> dict:
    # Load-test machinery the settings do not route is not described either (lms_stub/urls.py).
    described = learners.paths() if settings.LMS_AUTO_AUTH else {}
    described.update(commerce.paths())
    described.update(enrollment.paths())
    if settings.LMS_FAULT_CONTROL:
        described.update(faults.paths())
    if settings.LMS_PAYMENT_PROCESSOR:
        described.update(processor.paths())
    described.update(health.paths())
    return described
