"""Settings shared by every environment of the ecommerce service.

Every secret and address comes from the environment; the defaults, for a developer's machine,
are those of the table in common/environment (docs/configuration.md). ``production``
refuses to start without the secrets.
"""

from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from oscar import INSTALLED_APPS as OSCAR_INSTALLED_APPS

from common.contract import order_numbers
from settings._env import (
    env_bool,
    env_float,
    env_int,
    env_list,
    env_optional,
    env_rate,
    env_str,
    load_test_switch,
    mysql_database,
    use_mysql_driver,
)
from settings._logging import console_logging
from settings._oscar import *  # noqa: F403  (Oscar's settings live in their own file)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR"))

SECRET_KEY = env_str("ECOMMERCE_SECRET_KEY")
DEBUG = env_bool("ECOMMERCE_DEBUG")
ALLOWED_HOSTS = env_list("ECOMMERCE_ALLOWED_HOSTS")

# Oscar's analytics app keeps its models and dashboard reports, but not its receivers: they
# update one shared row per product for every order (lesson 2 of the 2015 write-up).
_ANALYTICS = "oscar.apps.analytics.apps.AnalyticsConfig"
INSTALLED_APPS = [
    "ecommerce.counters.apps.OscarAnalyticsConfig" if app == _ANALYTICS else app
    for app in OSCAR_INSTALLED_APPS
] + [
    "sorl.thumbnail",
    "rest_framework",
    "drf_spectacular",
    "ecommerce.core",
    "ecommerce.courses",
    "ecommerce.orders",
    "ecommerce.fulfillment",
    "ecommerce.payment",
    "ecommerce.counters",
    "ecommerce.dashboard",
    "axes",  # dashboard login throttling: django-axes, after the apps whose templates it may use
]

MIDDLEWARE = [
    "common.shedding.EcommerceAdmission",  # new work past the worker's limit: 503 overloaded, at once
    # First, so it times everything else (Server-Timing header, New Relic attributes).
    "common.timing.ServerTimingMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Lazy: the basket is only loaded when a storefront page asks for it, never by the API.
    "oscar.apps.basket.middleware.BasketMiddleware",
    # Last, as django-axes asks: turns a locked-out login into its answer (429).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "ecommerce.urls"
WSGI_APPLICATION = "ecommerce.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.template.context_processors.i18n",
                "django.contrib.messages.context_processors.messages",
                "oscar.apps.search.context_processors.search_form",
                "oscar.apps.checkout.context_processors.checkout",
                "oscar.apps.communication.notifications.context_processors.notifications",
                "oscar.core.context_processors.metadata",
            ],
        },
    },
]

MYSQL_DRIVER = use_mysql_driver("ECOMMERCE")
DATABASES = {"default": mysql_database("ECOMMERCE", env_str("ECOMMERCE_DB_NAME"))}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

AUTHENTICATION_BACKENDS = (
    # First: refuses a login for a locked-out username before any password is checked.
    "axes.backends.AxesStandaloneBackend",
    "oscar.apps.customer.auth_backends.EmailBackend",
    "django.contrib.auth.backends.ModelBackend",
)

# Password logins (the dashboard's form; JWTs never log in) are throttled by django-axes: after
# ECOMMERCE_LOGIN_FAILURES failures for one username, that username is refused (429) for
# ECOMMERCE_LOGIN_LOCKOUT_SECONDS, whatever address it comes from (behind the balancer every
# address is the balancer's). The attempts live in axes' tables (its migrations); a successful
# login clears them. docs/decisions/0064-no-account-through-a-log-no.md says why a username and
# not an address.
AXES_FAILURE_LIMIT = env_int("ECOMMERCE_LOGIN_FAILURES")
AXES_COOLOFF_TIME = timedelta(seconds=env_int("ECOMMERCE_LOGIN_LOCKOUT_SECONDS"))
AXES_LOCKOUT_PARAMETERS = ["username"]
# axes.W006 asks for the address among the parameters, against attackers who rotate user agents
# or cookies: neither changes a username, and an address would lock every user out at once
# behind the balancer (the per-address limits are HAProxy's stick tables).
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
# No "AXES: BEGIN" banner: every process that loads these settings logged it, so `make run`
# printed it once per management command of its start (four times) and each worker once more.
# Its lockout messages then name what locks (the username) and the path, not also the address
# and user agent.
AXES_VERBOSE = False
LOGIN_REDIRECT_URL = "/dashboard/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
SITE_ID = 1

STATIC_URL = "/static/"
# Collected from the installed packages only, so stacks of one checkout may share it (the
# test suites' stacks do: STATIC_DIR).
STATIC_ROOT = Path(env_str("STATIC_DIR"))
MEDIA_URL = "/media/"
MEDIA_ROOT = VAR_DIR / "media"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Request bodies of the API are small; a larger body is refused before it is parsed.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("ECOMMERCE_MAX_BODY_BYTES")

# A developer's machine shows mail in the service's log (var/log, not world-readable);
# settings.production never does.
EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"

# The dashboard's staff account, as ensure_staff makes it; no e-mail unless one is set.
ECOMMERCE_STAFF_EMAIL = env_optional("ECOMMERCE_STAFF_EMAIL") or ""

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "ecommerce.core.auth.JwtAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["ecommerce.core.parsers.StrictJSONParser"],
    "EXCEPTION_HANDLER": "ecommerce.core.errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# The OpenAPI 3 document served at /api/v2/schema/. The shapes are JSON Schema written beside
# the views (ecommerce/*/openapi.py); the hooks register them as components.
SPECTACULAR_SETTINGS = {
    "TITLE": "Order service (ecommerce)",
    "DESCRIPTION": (
        "Creates orders for course seats and fulfils them by enrolling the learner through the "
        "LMS. Every error answer has one shape (components/schemas/Error)."
    ),
    "VERSION": "2",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v2",
    "POSTPROCESSING_HOOKS": [
        "ecommerce.core.openapi.add_error_component",
        "ecommerce.orders.openapi.add_order_components",
        "ecommerce.payment.openapi.add_payment_components",
    ],
}

# --- The order service ------------------------------------------------------------------------

# JWTs from the LMS: HS256 only, signed with this shared secret, "iss" equal to JWT_ISSUER.
# Staff are reached only through tokens signed with a key of their own (ecommerce.core.auth);
# unset, no token reaches staff.
JWT_SECRET_KEY = env_str("JWT_SECRET_KEY")
STAFF_JWT_SECRET_KEY = env_optional("STAFF_JWT_SECRET_KEY")
if STAFF_JWT_SECRET_KEY == JWT_SECRET_KEY:
    raise ImproperlyConfigured(
        "STAFF_JWT_SECRET_KEY must not be JWT_SECRET_KEY: learner tokens would be staff."
    )
JWT_ISSUER = env_str("JWT_ISSUER")
JWT_LEEWAY_SECONDS = env_int("JWT_LEEWAY_SECONDS")
JWT_MAX_LIFETIME_SECONDS = env_int("JWT_MAX_LIFETIME_SECONDS")

# Fulfilment: the LMS enrollment API and the key ecommerce presents to it. The timeout bounds
# the fulfilment of a whole order, however many seats it has.
LMS_URL = env_str("LMS_URL").rstrip("/")
EDX_API_KEY = env_str("EDX_API_KEY")
LMS_ENROLLMENT_TIMEOUT = env_float("LMS_ENROLLMENT_TIMEOUT")

# The purchase counter: "events" (append-only events on the order path, folded into Oscar's
# ProductRecord by rollup_counters) or "oscar" (Oscar's own receivers, which update one row
# per product inside every order; for comparison runs only).
ORDER_COUNTER = env_str("ORDER_COUNTER")
if ORDER_COUNTER not in ("events", "oscar"):
    raise ImproperlyConfigured(f"ORDER_COUNTER must be events or oscar, not {ORDER_COUNTER!r}.")

# A basket holds at most this many products; a seat is bought one at a time.
MAX_BASKET_PRODUCTS = env_int("MAX_BASKET_PRODUCTS")

# Order numbers are <prefix>-<basket id + 100000> (common.contract.order_numbers), as Otto's
# were: edX's 2015 load client builds OSCR-<id + 100000> itself.
try:
    ORDER_NUMBER_PREFIX = order_numbers.check_prefix(env_str("ECOMMERCE_ORDER_PREFIX"))
except ValueError as exc:
    raise ImproperlyConfigured(f"ECOMMERCE_ORDER_PREFIX: {exc}") from None

# Payment processors, by the name a basket request gives (payment_processor_name); the first is
# the default. A basket whose total is above zero is paid: its checkout answers the signed form
# the learner's browser posts to the processor's page, and the order is placed when the
# processor's signed notification arrives (ecommerce.payment).
PAYMENT_PROCESSOR_CONFIG = {
    "cybersource": {
        "secret_key": env_str("CYBERSOURCE_SECRET_KEY"),
        "access_key": env_str("CYBERSOURCE_ACCESS_KEY"),
        "profile_id": env_str("CYBERSOURCE_PROFILE_ID"),
        "payment_page_url": env_str("CYBERSOURCE_PAYMENT_PAGE_URL"),
    },
}

# lms_stub's processor stand-in has a profile of its own. ecommerce takes notifications it signed
# only with ECOMMERCE_PAYMENT_STAND_IN (a load-test switch: on for a developer's machine, off under
# settings.production unless the deployment opts in), and then signs the checkout forms of a
# payment page at the stand-in with its profile (ecommerce.payment.processors).
ECOMMERCE_PAYMENT_STAND_IN = load_test_switch("ECOMMERCE_PAYMENT_STAND_IN", deployed=False)
PROCESSOR_STAND_IN = {
    "secret_key": env_str("LMS_PROCESSOR_SECRET_KEY"),
    "access_key": env_str("LMS_PROCESSOR_ACCESS_KEY"),
    "profile_id": env_str("LMS_PROCESSOR_PROFILE_ID"),
}

# A replay of an Idempotency-Key whose first request is still running waits this long for its
# answer before it is told to retry (409, Retry-After).
IDEMPOTENCY_WAIT_SECONDS = env_float("IDEMPOTENCY_WAIT_SECONDS")

# purge_payment_records: refused and failed notifications, and Idempotency-Key records, are
# deleted once this old (ecommerce's deployment runs it every hour).
NOTIFICATION_RETENTION_DAYS = env_int("NOTIFICATION_RETENTION_DAYS")
IDEMPOTENCY_RETENTION_DAYS = env_int("IDEMPOTENCY_RETENTION_DAYS")

# Purchases (baskets) one learner may make per period, counted in the database so every worker
# and host agrees; "off" turns the limit off (a load test that reuses its learners, say).
# The load suite's learners are new for every purchase, so the default never slows a run.
ECOMMERCE_LEARNER_RATE = env_rate("ECOMMERCE_LEARNER_RATE")

# An order still Open this long after it was placed lost its fulfilment (a worker died between
# the two transactions); retry_fulfillment --all picks it up.
STALE_OPEN_ORDER_SECONDS = env_int("STALE_OPEN_ORDER_SECONDS")

# Answers carry a Server-Timing header (db, lms, app, total ms); the load suite reports the
# split per step. Off hides the figures from clients (New Relic still gets them).
SERVER_TIMING = env_bool("SERVER_TIMING")

# Oscar's storefront: registration, basket, checkout. The order service sells through the API;
# the storefront is on for a developer's machine and off under settings.production, where a
# load-test deployment may opt in (ecommerce/urls.py). LOAD_TEST_MACHINERY names the switches
# a deployment turned on: ecommerce.core logs a WARNING for each at start.
ECOMMERCE_STOREFRONT = load_test_switch("ECOMMERCE_STOREFRONT", deployed=False)
LOAD_TEST_MACHINERY = []

LOGGING = console_logging(env_str("LOG_LEVEL"))
