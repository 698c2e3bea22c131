"""The names the suite's layers share: the statuses that count as an answered purchase, and
the request names (Locust's stats names) of the purchases. One home, so that the recorder,
the figures and the catalogue read them without importing one another. Standard library and
the wire contract only."""

from common.contract import paths

# A purchase answered with one of these placed an order: the audit expects its number.
SUCCESS_FOR_AUDIT = (200, 201, 202)
DEGRADED_STATUS = 202  # the order is placed, its enrollment failed (to be retried)

# The suite's learners: the free purchase, through the LMS.
ORDER_ENDPOINT = paths.COMMERCE_BASKETS

# edX's 2015 client (make edx2015): its free purchase, its paid one (the processor's
# notification, which Locust names by its path) and the paid order read back.
FREE_PURCHASE = paths.COMMERCE_BASKETS
PAID_PURCHASE = paths.payment_notification("cybersource")
PURCHASES = (FREE_PURCHASE, PAID_PURCHASE)
RECEIPT = "/api/v2/orders/:id/"  # the stats name of the paid order read back
