"""The settings of the 2015 client: edX's names and edX's rule (a variable that is set is taken
as it is, even empty; an unset one takes its default), with defaults that point at this stack
where edX's pointed at a devstack (the LMS on :8000, Otto on :8002): its addresses and secrets
from common/environment, its first course from the catalogue.

``python -m locustfiles.edx2015.config --shell`` prints them as ``export`` lines, for running
edX's own client against this stack (scripts/edx2015-original.sh).
"""

import os
import shlex
import sys

from common import environment
from common.contract import courses, order_numbers


def _setting(name: str, fallback=None):
    """``name`` as the environment has it if set; else the table's default, else ``fallback``."""
    if name in os.environ:
        return os.environ[name]
    default = environment.default(name)
    return fallback if default is None else default


# A course with a free seat, bought through the LMS, and the SKU of a paid seat, bought from
# ecommerce directly (edX: required, no default).
FREE_COURSE_ID = _setting("FREE_COURSE_ID", courses.course_id(1))
PAID_SKU = _setting("PAID_SKU", courses.paid_seat(1).sku)

ECOMMERCE_SERVICE_URL = _setting("ECOMMERCE_SERVICE_URL").strip("/")
ECOMMERCE_API_URL = _setting("ECOMMERCE_API_URL", f"{ECOMMERCE_SERVICE_URL}/api/v2/")
ECOMMERCE_JWT_SECRET_KEY = _setting("ECOMMERCE_JWT_SECRET_KEY")
ECOMMERCE_JWT_ISSUER = _setting("ECOMMERCE_JWT_ISSUER")

# As in 2015, a value from the environment stays text: only the default can be added to a
# basket id. The number ecommerce adds is the same (common/contract/order_numbers.py).
ECOMMERCE_ORDER_OFFSET = _setting("ECOMMERCE_ORDER_OFFSET", order_numbers.OFFSET)
ECOMMERCE_ORDER_PREFIX = _setting("ECOMMERCE_ORDER_PREFIX")

# The processor's secret is ecommerce's own setting of the same name (edX's default:
# fake-secret-key, Otto's local one).
CYBERSOURCE_SECRET_KEY = _setting("CYBERSOURCE_SECRET_KEY")

# Both or neither: HTTP basic credentials for every request (a site behind basic auth).
BASIC_AUTH_CREDENTIALS = (
    (os.environ["BASIC_AUTH_USER"], os.environ["BASIC_AUTH_PASSWORD"])
    if "BASIC_AUTH_USER" in os.environ and "BASIC_AUTH_PASSWORD" in os.environ
    else None
)

# Which task set the user runs: the 50:1 mix, or one of its two parts.
LOCUST_TASK_SET = _setting("LOCUST_TASK_SET")

# Ours, not edX's: a factor on the 3-5 s wait (1 unless a test asks for shorter waits).
WAIT_SCALE = environment.env_float("EDX2015_WAIT_SCALE")

EXPORTED = (
    "FREE_COURSE_ID",
    "PAID_SKU",
    "ECOMMERCE_SERVICE_URL",
    "ECOMMERCE_API_URL",
    "ECOMMERCE_JWT_SECRET_KEY",
    "ECOMMERCE_JWT_ISSUER",
    "ECOMMERCE_ORDER_PREFIX",
    "CYBERSOURCE_SECRET_KEY",
    "LOCUST_TASK_SET",
)


def shell() -> str:
    """The settings above as bash ``export`` lines (ECOMMERCE_ORDER_OFFSET is left unset: set,
    it would be text)."""
    return "".join(f"export {name}={shlex.quote(str(globals()[name]))}\n" for name in EXPORTED)


if __name__ == "__main__":
    if sys.argv[1:] != ["--shell"]:
        print("usage: python -m locustfiles.edx2015.config --shell", file=sys.stderr)
        sys.exit(2)
    sys.stdout.write(shell())
