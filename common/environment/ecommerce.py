"""The order service's own settings."""

from common.environment.model import Section, Variable

SECTION = Section(
    "ecommerce",
    (
        Variable("ECOMMERCE_DEBUG", "false", "bool", "Django DEBUG of ecommerce"),
        Variable(
            "ECOMMERCE_STOREFRONT",
            None,
            "bool",
            "Oscar's storefront (registration, basket, checkout, catalogue, accounts); off, its pages answer "
            "404 and /accounts/login/ leads to the dashboard's login; on under settings.production: a "
            "WARNING",
            shown="`true`; `false` under settings.production",
        ),
        Variable("ECOMMERCE_ALLOWED_HOSTS", "127.0.0.1,localhost", "list", "ecommerce's ALLOWED_HOSTS"),
        Variable(
            "ECOMMERCE_LOGIN_FAILURES",
            "5",
            "int",
            "failed dashboard logins of one username after which it is locked out (django-axes; 429)",
        ),
        Variable(
            "ECOMMERCE_LOGIN_LOCKOUT_SECONDS",
            "900",
            "int",
            "how long a locked-out username stays refused (each further try starts it again); "
            "`manage.py axes_reset_username NAME` lifts it",
        ),
        Variable("ECOMMERCE_MAX_BODY_BYTES", "65536", "int", "largest request body ecommerce parses"),
        Variable("JWT_LEEWAY_SECONDS", "5", "int", "clock skew allowed on a token's `exp`"),
        Variable(
            "JWT_MAX_LIFETIME_SECONDS",
            "3600",
            "int",
            "a token whose `exp` lies further ahead than this is refused (401), whatever key signed it",
        ),
        Variable(
            "ECOMMERCE_SMTP_HOST",
            None,
            "str",
            "settings.production sends mail (Oscar's, the dashboard's password resets) through this SMTP "
            "server; unset: no mail is sent at all (never to a log)",
            shown="unset",
        ),
        Variable("ECOMMERCE_SMTP_PORT", "587", "int", "its port"),
        Variable("ECOMMERCE_SMTP_USER", "", "str", "its user", shown="none"),
        Variable("ECOMMERCE_SMTP_PASSWORD", "", "str", "its password", shown="none"),
        Variable("ECOMMERCE_SMTP_STARTTLS", "true", "bool", "STARTTLS to it"),
        Variable(
            "LMS_ENROLLMENT_TIMEOUT",
            "7",
            "float",
            "seconds ecommerce may spend on the enrollment calls of one order",
        ),
        Variable(
            "ORDER_COUNTER",
            "events",
            "str",
            "`oscar`: Oscar's own per-order counter update (one locked row per product), for comparison runs",
        ),
        Variable("MAX_BASKET_PRODUCTS", "10", "int", "products per basket"),
        Variable(
            "ECOMMERCE_ORDER_PREFIX",
            "OSCR",
            "str",
            "order numbers are `<prefix>-<basket id + 100000>`, as Otto's were (capitals and digits)",
        ),
        Variable(
            "IDEMPOTENCY_WAIT_SECONDS",
            "2",
            "float",
            "how long a replayed key waits for a first request still running",
        ),
        Variable(
            "ECOMMERCE_LEARNER_RATE",
            "20/min",
            "str",
            "purchases one learner may make per period (`N/s`, `/min`, `/hour`, `/day`), counted in the "
            "database; over it: 429 with Retry-After; `off` for load runs that reuse their learners",
        ),
        Variable(
            "STALE_OPEN_ORDER_SECONDS",
            "300",
            "int",
            "an order Open this long lost its fulfilment; `retry_fulfillment --all` takes it",
        ),
        Variable(
            "ROLLUP_INTERVAL",
            "1",
            "float",
            "seconds between folds of purchase events into Oscar's records",
            shell=True,
        ),
        Variable(
            "SERVER_TIMING",
            "true",
            "bool",
            "answers carry a `Server-Timing` header (time in the database, the LMS, the code); `false` hides "
            "it; deployments send it only when set (the load-test inventories do)",
            production="false",
        ),
        Variable("LOG_LEVEL", "INFO", "str", "both services' console log level"),
        Variable("SECURE_SSL_REDIRECT", "true", "bool", "settings.production: redirect http to https"),
        Variable("SECURE_HSTS_SECONDS", "31536000", "int", "settings.production: HSTS max-age"),
        Variable(
            "SECURE_HSTS_PRELOAD",
            "true",
            "bool",
            "settings.production: ask for the browsers' HSTS preload list",
        ),
        Variable(
            "CSRF_TRUSTED_ORIGINS", "", "list", "settings.production: origins trusted for CSRF", shown="none"
        ),
    ),
)
