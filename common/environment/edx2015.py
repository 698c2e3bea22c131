"""edX's 2015 client (locustfiles/edx2015/, make edx2015): the settings by edX's names."""

from common.environment.model import Section, Variable

SECTION = Section(
    "edX's 2015 client",
    (
        Variable(
            "FREE_COURSE_ID", None, "str", "edX 2015 client: course bought through the LMS", shown="course 1"
        ),
        Variable(
            "PAID_SKU",
            None,
            "str",
            "edX 2015 client: seat paid for through ecommerce (edX required it)",
            shown="course 1's paid seat",
        ),
        Variable("ECOMMERCE_SERVICE_URL", "{ECOMMERCE_URL}", "str", "edX 2015 client: ecommerce's root"),
        Variable(
            "ECOMMERCE_API_URL",
            None,
            "str",
            "edX 2015 client: ecommerce's API root",
            shown="`$ECOMMERCE_SERVICE_URL/api/v2/`",
        ),
        Variable(
            "ECOMMERCE_JWT_SECRET_KEY",
            "{JWT_SECRET_KEY}",
            "str",
            "edX 2015 client: signs its learner tokens",
            shown="`$JWT_SECRET_KEY`",
        ),
        Variable("ECOMMERCE_JWT_ISSUER", "{JWT_ISSUER}", "str", "edX 2015 client: its tokens' `iss`"),
        Variable(
            "ECOMMERCE_ORDER_OFFSET",
            None,
            "str",
            "edX 2015 client: added to a basket id for its order number; set, it stays text (as in 2015) and "
            "the payment task fails: leave it unset",
            shown="100000",
        ),
        Variable(
            "BASIC_AUTH_USER",
            None,
            "str",
            "edX 2015 client: HTTP basic user (with the password)",
            shown="none",
        ),
        Variable("BASIC_AUTH_PASSWORD", None, "str", "edX 2015 client: HTTP basic password", shown="none"),
        Variable(
            "LOCUST_TASK_SET",
            "EcommerceTest",
            "str",
            "edX 2015 client: `EcommerceTest` (free 50 : paid 1), `BasketsTasks` or "
            "`CybersourcePaymentTasks`",
        ),
        Variable(
            "EDX2015_WAIT_SCALE",
            "1",
            "float",
            "ours: a factor on the 2015 client's 3-5 s wait (tests shorten it)",
        ),
        Variable(
            "EDX2015_LOCUSTFILE",
            "locustfiles/edx2015/locustfile.py",
            "str",
            "the 2015 client `make edx2015` runs (scripts/edx2015-original.sh points it at edX's own)",
        ),
    ),
)
