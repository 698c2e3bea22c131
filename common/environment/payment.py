"""Payment: CyberSource Secure Acceptance, or lms_stub's stand-in for it."""

from common.environment.model import Section, Variable

SECTION = Section(
    "Payment",
    (
        Variable(
            "CYBERSOURCE_ACCESS_KEY",
            "loadtest-cybersource-access-key",
            "str",
            "the processor profile's access key, sent in every checkout form (not a secret)",
        ),
        Variable(
            "CYBERSOURCE_PROFILE_ID",
            "loadtest-cybersource-profile",
            "str",
            "the processor profile's id (not a secret)",
        ),
        Variable(
            "CYBERSOURCE_PAYMENT_PAGE_URL",
            "{LMS_URL}/processor/cybersource/pay/",
            "str",
            "where a paid checkout sends the learner's browser (`payment_page_url`): lms_stub's stand-in by "
            "default, CyberSource's pay URL in a real shop; a deployment set to the stand-in's needs "
            "ECOMMERCE_PAYMENT_STAND_IN",
            production="https://secureacceptance.cybersource.com/pay",
        ),
        Variable(
            "ECOMMERCE_PAYMENT_STAND_IN",
            None,
            "bool",
            "ecommerce takes notifications signed by lms_stub's processor stand-in (its LMS_PROCESSOR_* "
            "profile, which then signs the checkout forms for a payment page at the stand-in); on under "
            "settings.production: a WARNING (load-test deployments only). A deployed ecommerce whose "
            "CYBERSOURCE_PAYMENT_PAGE_URL is the stand-in's refuses to start without it",
            shown="`true`; `false` under settings.production",
        ),
        Variable(
            "LMS_PROCESSOR_SECRET_KEY",
            "local-only-processor-stand-in-secret-key",
            "str",
            "the processor stand-in's own profile secret: lms_stub checks checkout forms and signs "
            "notifications with it, never with CYBERSOURCE_SECRET_KEY (ecommerce reads it only with "
            "ECOMMERCE_PAYMENT_STAND_IN)",
            shown="a local default",
        ),
        Variable(
            "LMS_PROCESSOR_ACCESS_KEY",
            "loadtest-stand-in-access-key",
            "str",
            "the processor stand-in's profile access key (not a secret)",
        ),
        Variable(
            "LMS_PROCESSOR_PROFILE_ID",
            "loadtest-stand-in-profile",
            "str",
            "the processor stand-in's profile id (not a secret)",
        ),
        Variable(
            "NOTIFICATION_RETENTION_DAYS",
            "30",
            "int",
            "`purge_payment_records` deletes refused and failed payment notifications older than this "
            "(taken ones are kept: they are the payments' record)",
        ),
        Variable(
            "IDEMPOTENCY_RETENTION_DAYS",
            "7",
            "int",
            "`purge_payment_records` deletes Idempotency-Key records older than this (a client's retries "
            "come within minutes)",
        ),
    ),
)
