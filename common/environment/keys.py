"""Secrets (local defaults only: deployments refuse them) and the dashboard's staff user."""

from common.environment.model import Section, Variable

SECTION = Section(
    "Secrets and the staff user",
    (
        Variable(
            "ECOMMERCE_SECRET_KEY",
            "local-only-ecommerce-secret-key-do-not-deploy",
            "str",
            "ecommerce's Django secret key",
            shown="a local default",
        ),
        Variable(
            "LMS_SECRET_KEY",
            "local-only-lms-secret-key-do-not-deploy",
            "str",
            "lms_stub's Django secret key",
            shown="a local default",
        ),
        Variable(
            "JWT_SECRET_KEY",
            "local-only-jwt-secret-do-not-deploy",
            "str",
            "signs learner tokens (shared by both services, and the load suite's paid journey)",
            shown="a local default",
        ),
        Variable(
            "STAFF_JWT_SECRET_KEY",
            None,
            "str",
            "signs the only tokens that reach a staff account through ecommerce's API (a key of its own, "
            "never JWT_SECRET_KEY, held by no Locust host); unset: no token reaches staff; `make up` "
            "generates one into `var/staff-jwt-secret`",
            shown="unset",
        ),
        Variable("JWT_ISSUER", "lms-stub", "str", "learner tokens' `iss` (shared; must match)"),
        Variable(
            "EDX_API_KEY",
            "local-only-edx-api-key",
            "str",
            "key for the enrollment API (shared)",
            shown="a local default",
        ),
        Variable(
            "LMS_FAULT_API_KEY",
            "local-only-fault-api-key",
            "str",
            "key for lms_stub's fault API (`X-Fault-Api-Key`); a deployed stand-in with LMS_FAULT_CONTROL on "
            "needs its own, not EDX_API_KEY",
            shown="a local default",
        ),
        Variable(
            "CYBERSOURCE_SECRET_KEY",
            "local-only-cybersource-secret-key",
            "str",
            "the shop's payment processor profile secret: ecommerce signs checkout forms and checks "
            "notifications with it (edX's 2015 load client reads the same name); lms_stub's stand-in has "
            "its own (LMS_PROCESSOR_SECRET_KEY)",
            shown="a local default",
        ),
        Variable(
            "LMS_REQUIRE_SECRETS",
            "false",
            "bool",
            "`true`: lms_stub refuses missing secrets and the values the repository publishes (deployments)",
        ),
        Variable("ECOMMERCE_STAFF_USER", "staff", "str", "dashboard user `make up` creates", shell=True),
        Variable(
            "ECOMMERCE_STAFF_EMAIL",
            None,
            "str",
            "e-mail address `ensure_staff` gives that user: set one only its operators read; unset, it has "
            "none (no published address anyone can ask a password reset for)",
            shown="none",
        ),
        Variable(
            "ECOMMERCE_STAFF_PASSWORD",
            None,
            "str",
            "dashboard password of the staff user",
            shown="generated once into `var/staff-password`",
        ),
    ),
)
