"""Order and line statuses: the one place their names are written.

An order starts ``Open``. Fulfilment ends it ``Complete`` or ``Fulfillment Error``; a retry
takes a ``Fulfillment Error`` order back to ``Open`` for the length of the call and then to
``Complete`` (or back to ``Fulfillment Error``). A line's error status names the reason, so the
dashboard and the retry tools can tell a flaky network from a misconfiguration.

A payment processor's notification is recorded with what became of it (``NOTIFICATION``).
"""


class ORDER:
    OPEN = "Open"
    COMPLETE = "Complete"
    FULFILLMENT_ERROR = "Fulfillment Error"


class LINE:
    OPEN = "Open"
    COMPLETE = "Complete"
    # The LMS could not be reached (refused, reset, DNS).
    FULFILLMENT_NETWORK_ERROR = "Fulfillment Network Error"
    # The LMS did not answer within LMS_ENROLLMENT_TIMEOUT.
    FULFILLMENT_TIMEOUT_ERROR = "Fulfillment Timeout Error"
    # The LMS answered 5xx.
    FULFILLMENT_SERVER_ERROR = "Fulfillment Server Error"
    # The request can never succeed as configured: the LMS refused it (4xx, e.g. a wrong API
    # key) or the product does not say which course and mode it enrols in.
    FULFILLMENT_CONFIGURATION_ERROR = "Fulfillment Configuration Error"

    ERRORS = (
        FULFILLMENT_NETWORK_ERROR,
        FULFILLMENT_TIMEOUT_ERROR,
        FULFILLMENT_SERVER_ERROR,
        FULFILLMENT_CONFIGURATION_ERROR,
    )


# Allowed transitions, in the shape Oscar's dashboard expects.
ORDER_STATUS_PIPELINE = {
    ORDER.OPEN: (ORDER.COMPLETE, ORDER.FULFILLMENT_ERROR),
    ORDER.FULFILLMENT_ERROR: (ORDER.OPEN, ORDER.COMPLETE),
    ORDER.COMPLETE: (),
}

LINE_STATUS_PIPELINE = {
    LINE.OPEN: (LINE.COMPLETE, *LINE.ERRORS),
    LINE.COMPLETE: (),
    **{error: (LINE.OPEN, LINE.COMPLETE) for error in LINE.ERRORS},
}


class NOTIFICATION:
    """What became of a payment processor's notification (every one is recorded with one).

    An accepted payment ends as exactly one of PLACED (its order was placed) or REFUND_OWED (no
    order: the learner already owned a seat of the basket, or the basket was already paid by
    another transaction); a repeat of either is a REPLAY and changes nothing. The others place
    nothing and are answered 400 (the refusals) or 200 (DECLINED).
    """

    PLACED = "placed"
    REPLAY = "replay"
    REFUND_OWED = "refund_owed"
    DECLINED = "declined"
    # Refused (400): nothing placed.
    INVALID_SIGNATURE = "invalid_signature"
    MALFORMED = "malformed"
    UNKNOWN_REFERENCE = "unknown_reference"
    AMOUNT_MISMATCH = "amount_mismatch"
    CURRENCY_MISMATCH = "currency_mismatch"
    # The service failed while handling it (500): nothing placed; the processor sends it again.
    FAILED = "failed"

    ACCEPTED = (PLACED, REFUND_OWED)
    REFUSED = (INVALID_SIGNATURE, MALFORMED, UNKNOWN_REFERENCE, AMOUNT_MISMATCH, CURRENCY_MISMATCH)
    ALL = (PLACED, REPLAY, REFUND_OWED, DECLINED, *REFUSED, FAILED)
