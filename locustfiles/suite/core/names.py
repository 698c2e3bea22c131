"""The names the suite's layers share: the statuses that count as an answered purchase, the
request names (Locust's stats names) of the purchases, and the run folder's progress log. One
home, so that the recorder, the figures, the catalogue and the command line read them without
importing one another. Standard library and the wire contract only."""

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

# The run folder's progress lines: the run object writes them, `python -m locustfiles.suite.run`
# prints them as they come (it imports no Locust: the processes it starts do).
PROGRESS_FILE = "progress.log"
# What the run started on (the purchases preloaded, the databases' size): the command line
# writes it while Locust starts, the run object reads it into the summary's config.
START_FILE = "database-at-start.json"
# The one user of a web UI with a login (WEB_LOGIN): the web UI checks it (run/control.py),
# the command line names it when it starts one.
WEB_OPERATOR = "operator"
