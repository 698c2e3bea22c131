"""A deployment. Secrets must come from the environment: the service refuses to start
without them, or with a value the repository publishes (common/environment.py's local defaults,
ansible/group_vars/all/vault.yml.example's examples; settings/_env.py, is_published_secret)."""

from settings._env import database_account, env_bool, env_int, env_list, load_test_switch, require_secrets
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

# No storefront (registration, basket, checkout) unless a load-test deployment sets it to true.
ECOMMERCE_STOREFRONT = load_test_switch("ECOMMERCE_STOREFRONT", deployed=True)
LOAD_TEST_MACHINERY = ["ECOMMERCE_STOREFRONT"] if ECOMMERCE_STOREFRONT else []

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
