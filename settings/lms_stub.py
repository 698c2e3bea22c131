"""Settings of the LMS stand-in (lms_stub): its own secret, database and addresses.

It is test equipment, so it is kept small: signed-cookie sessions (no session table), no
admin, no templates. The shared secrets must match ecommerce's: JWT_SECRET_KEY signs the
learner tokens ecommerce accepts, EDX_API_KEY is what ecommerce presents to the enrollment API.

Its load-test machinery, /auto_auth, the fault API and the payment processor's stand-in, is
routed only where it is switched on: by default on a developer's machine, never in a deployed
stand-in unless the deployment opts in.
"""

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from settings._env import (
    database_account,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_str,
    load_test_switch,
    mysql_database,
    require_secrets,
    use_mysql_driver,
)
from settings._logging import console_logging

BASE_DIR = Path(__file__).resolve().parent.parent

# A deployed stand-in (LMS_REQUIRE_SECRETS=true) refuses missing secrets and the values the
# repository publishes (local defaults, vault examples), by production's rule (settings/_env.py):
# with a known secret key anyone could forge a learner's session cookie.
LMS_REQUIRE_SECRETS = env_bool("LMS_REQUIRE_SECRETS")
if LMS_REQUIRE_SECRETS:
    require_secrets(
        ("LMS_SECRET_KEY", "JWT_SECRET_KEY", "EDX_API_KEY", database_account("LMS")[1]), "lms_stub settings"
    )

# Load-test machinery: GET /auto_auth makes and logs in a learner for anyone; /api/faults/ slows
# or breaks the enrollment API; /processor/cybersource/ takes payments for anyone and notifies
# ecommerce of them. A deployed stand-in routes none unless set to true, and then says so at
# start (LOAD_TEST_MACHINERY: lms_stub.learners, lms_stub.faults and lms_stub.processor log a
# WARNING).
LMS_AUTO_AUTH = load_test_switch("LMS_AUTO_AUTH", deployed=LMS_REQUIRE_SECRETS)
LMS_FAULT_CONTROL = load_test_switch("LMS_FAULT_CONTROL", deployed=LMS_REQUIRE_SECRETS)
LMS_PAYMENT_PROCESSOR = load_test_switch("LMS_PAYMENT_PROCESSOR", deployed=LMS_REQUIRE_SECRETS)
LOAD_TEST_MACHINERY = [
    name
    for name, on in (
        ("LMS_AUTO_AUTH", LMS_AUTO_AUTH),
        ("LMS_FAULT_CONTROL", LMS_FAULT_CONTROL),
        ("LMS_PAYMENT_PROCESSOR", LMS_PAYMENT_PROCESSOR),
    )
    if on and LMS_REQUIRE_SECRETS
]
if LMS_REQUIRE_SECRETS and LMS_FAULT_CONTROL:
    # Its own key: whoever holds the enrollment key (ecommerce) cannot break the enrollment API.
    require_secrets(("LMS_FAULT_API_KEY",), "lms_stub settings with LMS_FAULT_CONTROL")
    if env_str("LMS_FAULT_API_KEY") == env_str("EDX_API_KEY"):
        raise ImproperlyConfigured("LMS_FAULT_API_KEY must differ from EDX_API_KEY.")
if LMS_REQUIRE_SECRETS and LMS_PAYMENT_PROCESSOR:
    # With the published key anyone could sign a payment an opted-in ecommerce would take.
    require_secrets(("LMS_PROCESSOR_SECRET_KEY",), "lms_stub settings with LMS_PAYMENT_PROCESSOR")

SECRET_KEY = env_str("LMS_SECRET_KEY")
DEBUG = False
ALLOWED_HOSTS = env_list("LMS_ALLOWED_HOSTS")

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "lms_stub.learners",
    "lms_stub.enrollment",
    "lms_stub.faults",
    "lms_stub.commerce",
    "lms_stub.processor",
]

MIDDLEWARE = [
    "common.shedding.LmsAdmission",  # new work past the worker's limit: 503 overloaded, at once
    "common.timing.ServerTimingMiddleware",  # Server-Timing, with ecommerce's entries
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # request.user from the signed session, without a query (lms_stub/learners/session.py).
    "lms_stub.learners.session.SessionLearnerMiddleware",
    "lms_stub.http.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "lms_stub.urls"
WSGI_APPLICATION = "lms_stub.wsgi.application"
TEMPLATES = []

MYSQL_DRIVER = use_mysql_driver("LMS")
DATABASES = {"default": mysql_database("LMS", env_str("LMS_DB_NAME"))}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
AUTHENTICATION_BACKENDS = ["lms_stub.learners.backends.LearnerBackend"]

# /auto_auth hashes a password for every learner a load run creates: see lms_stub/learners/hashers.py.
PASSWORD_HASHERS = [
    "lms_stub.learners.hashers.LoadTestPBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
SESSION_COOKIE_HTTPONLY = True
# The API reads the CSRF token from the cookie set by /auto_auth and sends it back as a header.
CSRF_COOKIE_HTTPONLY = False
CSRF_FAILURE_VIEW = "lms_stub.views.csrf_failure"

USE_TZ = True
TIME_ZONE = "UTC"
USE_I18N = False

DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("LMS_MAX_BODY_BYTES")

# The course catalogue the LMS knows: the first CATALOG_COURSES seats of
# common.contract.courses, the same list seed_catalog writes into ecommerce.
CATALOG_COURSES = env_int("CATALOG_COURSES")

# Learner tokens for ecommerce.
JWT_SECRET_KEY = env_str("JWT_SECRET_KEY")
JWT_ISSUER = env_str("JWT_ISSUER")
JWT_LIFETIME_SECONDS = env_int("JWT_LIFETIME_SECONDS")
# ecommerce refuses a token whose exp lies further ahead than this (ecommerce/core/auth.py): a
# longer lifetime here would have every purchase refused, so it is refused at start-up instead.
if JWT_LIFETIME_SECONDS > env_int("JWT_MAX_LIFETIME_SECONDS"):
    raise ImproperlyConfigured(
        f"JWT_LIFETIME_SECONDS ({JWT_LIFETIME_SECONDS}) is over JWT_MAX_LIFETIME_SECONDS "
        f"({env_int('JWT_MAX_LIFETIME_SECONDS')}): ecommerce would refuse every token lms_stub signs."
    )

# The key callers of the enrollment API must present (X-Edx-Api-Key), and the one of the fault
# API (X-Fault-Api-Key).
EDX_API_KEY = env_str("EDX_API_KEY")
LMS_FAULT_API_KEY = env_str("LMS_FAULT_API_KEY")

ECOMMERCE_URL = env_str("ECOMMERCE_URL").rstrip("/")
# Must exceed ecommerce's LMS_ENROLLMENT_TIMEOUT: ecommerce may spend that long fulfilling.
ECOMMERCE_TIMEOUT = env_float("ECOMMERCE_TIMEOUT")

# Fault injection on the enrollment API, until changed at run time through /api/faults/.
LMS_FAULT_LATENCY_MS = env_int("LMS_FAULT_LATENCY_MS")
LMS_FAULT_JITTER_MS = env_int("LMS_FAULT_JITTER_MS")
LMS_FAULT_ERROR_RATE = env_float("LMS_FAULT_ERROR_RATE")
# An outage window in Unix seconds; the enrollment API answers 503 inside it.
LMS_FAULT_OUTAGE_START = env_float("LMS_FAULT_OUTAGE_START")
LMS_FAULT_OUTAGE_END = env_float("LMS_FAULT_OUTAGE_END")
# How often each worker re-reads the fault settings stored by /api/faults/.
LMS_FAULT_REFRESH_SECONDS = env_float("LMS_FAULT_REFRESH_SECONDS")

# The payment processor's stand-in: its own profile, never the shop's (CYBERSOURCE_SECRET_KEY):
# ecommerce signs checkout forms for a page here with it, and takes the notifications it signs
# only with ECOMMERCE_PAYMENT_STAND_IN on. And where it posts the notification of each payment.
LMS_PROCESSOR_SECRET_KEY = env_str("LMS_PROCESSOR_SECRET_KEY")
LMS_PROCESSOR_ACCESS_KEY = env_str("LMS_PROCESSOR_ACCESS_KEY")
LMS_PROCESSOR_PROFILE_ID = env_str("LMS_PROCESSOR_PROFILE_ID")
LMS_PAYMENT_NOTIFY_URL = env_str("LMS_PAYMENT_NOTIFY_URL")

# As ecommerce's (settings/base.py): a Server-Timing header, here with ecommerce's entries.
SERVER_TIMING = env_bool("SERVER_TIMING")

LOGGING = console_logging(env_str("LOG_LEVEL"))
