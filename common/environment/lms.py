"""The LMS stand-in's own settings: its switches, its catalogue and its enrollment API's faults."""

from common.environment.model import Section, Variable

SECTION = Section(
    "lms_stub",
    (
        Variable("LMS_ALLOWED_HOSTS", "127.0.0.1,localhost", "list", "lms_stub's ALLOWED_HOSTS"),
        Variable(
            "LMS_AUTO_AUTH",
            None,
            "bool",
            "lms_stub routes `/auto_auth` (a new learner, logged in, for anyone); on in a deployed stand-in: "
            "a WARNING (load-test deployments only)",
            shown="`true`; `false` when LMS_REQUIRE_SECRETS",
        ),
        Variable(
            "LMS_FAULT_CONTROL",
            None,
            "bool",
            "lms_stub routes `/api/faults/` (fault injection at run time); on in a deployed stand-in: a "
            "WARNING "
            "(load-test deployments only)",
            shown="`true`; `false` when LMS_REQUIRE_SECRETS",
        ),
        Variable(
            "LMS_PAYMENT_PROCESSOR",
            None,
            "bool",
            "lms_stub routes `/processor/cybersource/` (a stand-in for the payment processor: a hosted "
            "payment "
            "page that notifies ecommerce); on in a deployed stand-in: a WARNING (load-test deployments "
            "only)",
            shown="`true`; `false` when LMS_REQUIRE_SECRETS",
        ),
        Variable(
            "LMS_PAYMENT_NOTIFY_URL",
            "{ECOMMERCE_URL}/payment/cybersource/notify/",
            "str",
            "where the processor stand-in posts its signed notifications",
        ),
        Variable("LMS_MAX_BODY_BYTES", "16384", "int", "largest request body lms_stub parses"),
        Variable("CATALOG_COURSES", "100", "int", "courses seeded and known to the LMS", shell=True),
        Variable("JWT_LIFETIME_SECONDS", "60", "int", "lifetime of the learner tokens lms_stub signs"),
        Variable(
            "ECOMMERCE_TIMEOUT",
            "20",
            "float",
            "seconds the LMS waits for ecommerce (above LMS_ENROLLMENT_TIMEOUT)",
        ),
        Variable("LMS_FAULT_LATENCY_MS", "0", "int", "enrollment API fault from the start: added latency"),
        Variable(
            "LMS_FAULT_JITTER_MS", "0", "int", "enrollment API fault from the start: random extra latency"
        ),
        Variable(
            "LMS_FAULT_ERROR_RATE", "0", "float", "enrollment API fault from the start: share answered 500"
        ),
        Variable("LMS_FAULT_OUTAGE_START", "0", "float", "enrollment API outage from (Unix seconds)"),
        Variable("LMS_FAULT_OUTAGE_END", "0", "float", "enrollment API outage until (Unix seconds)"),
        Variable(
            "LMS_FAULT_REFRESH_SECONDS",
            "0.5",
            "float",
            "how often lms_stub workers re-read the fault settings",
        ),
    ),
)
