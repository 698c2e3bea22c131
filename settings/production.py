"""A deployment. Secrets must come from the environment: the service refuses to start
without them, or with a value the repository publishes (common/environment's local defaults,
ansible/group_vars/all/vault.yml.example's examples; settings/_env.py, is_published_secret)."""

from django.core.exceptions import ImproperlyConfigured

from common.contract import cybersource, paths
from settings._env import (
    database_account,
    env_bool,
    env_int,
    env_list,
    env_optional,
    env_str,
    is_published_secret,
    load_test_switch,
    require_secrets,
)
from settings.base import *  # noqa: F403

REQUIRED_SECRETS = (
    "ECOMMERCE_SECRET_KEY",
    "JWT_SECRET_KEY",
    "EDX_API_KEY",
    "CYBERSOURCE_SECRET_KEY",
    database_account("ECOMMERCE")[1],  # ECOMMERCE_DB_PASSWORD, or the owner's for a migration
    "ECOMMERCE_ALLOWED_HOSTS",
)
require_secrets(REQUIRED_SECRETS, "production settings")

DEBUG = False

if STAFF_JWT_SECRET_KEY and is_published_secret(STAFF_JWT_SECRET_KEY):  # noqa: F405
    raise ImproperlyConfigured("STAFF_JWT_SECRET_KEY has a value published in the repository.")

# Mail goes to an SMTP server or nowhere: never to the console, whose output is the service's
# log (a password-reset link in a log file is the account).
EMAIL_HOST = env_optional("ECOMMERCE_SMTP_HOST")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("ECOMMERCE_SMTP_PORT")
    EMAIL_HOST_USER = env_str("ECOMMERCE_SMTP_USER")
    EMAIL_HOST_PASSWORD = env_str("ECOMMERCE_SMTP_PASSWORD")
    EMAIL_USE_TLS = env_bool("ECOMMERCE_SMTP_STARTTLS")
    EMAIL_TIMEOUT = 10
else:
    EMAIL_BACKEND = "django.core.mail.backends.dummy.EmailBackend"

# No storefront (registration, basket, checkout) unless a load-test deployment sets it to true.
ECOMMERCE_STOREFRONT = load_test_switch("ECOMMERCE_STOREFRONT", deployed=True)

# No payment signed by lms_stub's processor stand-in unless a load-test deployment sets it to
# true, and then with a key of its own; a payment page at the stand-in without it is a copied
# load-test inventory: refused, before a learner is sent there.
PAYMENT_PROCESSOR_CONFIG["cybersource"]["payment_page_url"] = env_str(  # noqa: F405
    "CYBERSOURCE_PAYMENT_PAGE_URL", production=True
)
ECOMMERCE_PAYMENT_STAND_IN = load_test_switch("ECOMMERCE_PAYMENT_STAND_IN", deployed=True)
if ECOMMERCE_PAYMENT_STAND_IN:
    require_secrets(("LMS_PROCESSOR_SECRET_KEY",), "production settings with ECOMMERCE_PAYMENT_STAND_IN")
elif cybersource.is_stand_in_page(PAYMENT_PROCESSOR_CONFIG["cybersource"]["payment_page_url"]):  # noqa: F405
    raise ImproperlyConfigured(
        "CYBERSOURCE_PAYMENT_PAGE_URL points at lms_stub's payment processor stand-in "
        f"({paths.PROCESSOR_PAY}), which takes payments for anyone: set it to CyberSource's "
        "pay URL, or, for a load-test deployment only, ECOMMERCE_PAYMENT_STAND_IN=true."
    )

LOAD_TEST_MACHINERY = [
    name
    for name, on in (
        ("ECOMMERCE_STOREFRONT", ECOMMERCE_STOREFRONT),
        ("ECOMMERCE_PAYMENT_STAND_IN", ECOMMERCE_PAYMENT_STAND_IN),
    )
    if on
]

# TLS ends at the load balancer in front of gunicorn. The scheme is gunicorn's (wsgi.url_scheme):
# gunicorn believes X-Forwarded-Proto only from the peers in its forwarded_allow_ips, which the
# deployment sets to its balancers' addresses (ansible/roles/ecommerce, ecommerce_forwarded_allow_ips).
# Django's SECURE_PROXY_SSL_HEADER would believe the header from any peer, so a request sent to
# gunicorn around the balancer could claim https.
SECURE_PROXY_SSL_HEADER = None
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT")
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS")
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
# On by default, as `manage.py check --deploy` asks; turn it off before the first deploy if the
# domain is not to be submitted to the browsers' HSTS preload list.
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD")
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# Server-Timing tells any client how long the database, the LMS and the code took: off unless the
# deployment sets SERVER_TIMING (the table's production default; the Ansible inventories of the
# load tests set it, since the load suite reads the header).
SERVER_TIMING = env_bool("SERVER_TIMING", production=True)
