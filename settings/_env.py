"""Reading configuration from the environment for Django settings: common/environment's
table gives every name its default and kind; here a bad or missing value stops the service with
Django's ImproperlyConfigured, which names the variable."""

import os

from django.core.exceptions import ImproperlyConfigured

from common import environment
from common.environment import BadSetting


def _read(reader, name: str, production: bool = False):
    try:
        return reader(name, production=production)
    except BadSetting as exc:
        raise ImproperlyConfigured(str(exc)) from None


def env_str(name: str, production: bool = False) -> str:
    """The variable's value, or its default; a variable without a default must be set.
    ``production``: settings.production's reading, the table's deployments' default if any."""
    value = _read(environment.env_str, name, production)
    if value is None:
        raise ImproperlyConfigured(f"Set the environment variable {name}.")
    return value


def env_optional(name: str) -> str | None:
    """The variable's value, or None when it is unset (a variable without a default)."""
    return _read(environment.env_str, name)


def env_int(name: str) -> int:
    return _read(environment.env_int, name)


def env_float(name: str) -> float:
    return _read(environment.env_float, name)


def env_bool(name: str, production: bool = False) -> bool:
    """``production``: settings.production's reading, the table's deployments' default if any."""
    return _read(environment.env_bool, name, production)


def env_list(name: str) -> list[str]:
    return _read(environment.env_list, name)


# Secret values published in this repository, which no deployment may run with: the local
# defaults of common/environment ("local-only-…", the database password's "-local-") and the
# examples of ansible/group_vars/all/vault.yml.example ("change-me-…"). The Ansible roles refuse
# the same (ansible/roles/common/vars/main.yml, common_published_secrets;
# tests/unit/test_deployment_secrets.py keeps the two equal).
PUBLISHED_SECRET_MARKERS = ("local-only", "-local-", "change-me")


def is_published_secret(value: str) -> bool:
    """True for a value that is, or is shaped like, one this repository publishes."""
    value = value.lower()
    return any(marker in value for marker in PUBLISHED_SECRET_MARKERS)


def load_test_switch(name: str, deployed: bool) -> bool:
    """A switch of load-test machinery (a route that creates learners, one that injects faults,
    Oscar's storefront): the value set, or else on for a developer's machine and off in a
    deployment, which must opt in by setting it."""
    value = env_bool(name)
    return not deployed if value is None else value


def require_secrets(names: tuple[str, ...], deployment: str) -> None:
    """Refuse to start a deployment (``deployment`` names it in the message) unless every one of
    ``names`` is set, and to none of the values the repository publishes (is_published_secret):
    everyone can read those."""
    missing = [name for name in names if not os.environ.get(name)]
    if missing:
        raise ImproperlyConfigured(f"{deployment} need these environment variables: " + ", ".join(missing))
    published = [name for name in names if is_published_secret(os.environ[name])]
    if published:
        raise ImproperlyConfigured(
            f"these {deployment} still have a value published in the repository (a local default "
            "of common/environment/ or an example of ansible/group_vars/all/vault.yml.example): "
            + ", ".join(published)
        )


# PyMySQL (2.x) tries TLS on every connection unless told not to: it builds a TLS context with
# the system's certificates for each one, 35 ms of CPU on this project's VM against 0.5 ms for
# the connection itself, then talks plain text anyway when the server offers no TLS, as the
# project's MariaDB does not (have_ssl DISABLED, locally and as deployed). Plain text is what
# every connection was; saying so costs nothing. (mysqlclient's connector tries no TLS.)
PYMYSQL_PLAIN = {"ssl_disabled": True}


def use_mysql_driver(service: str) -> str:
    """Load the MySQL driver named by <SERVICE>_MYSQL_DRIVER or MYSQL_DRIVER before Django
    imports MySQLdb.

    ``pymysql`` (the default) is pure Python and yields to gevent while it waits on the
    server; ``mysqlclient`` is C and blocks the whole gevent worker while a query waits (see
    docs/decisions/0008-gevent-workers-with-pymysql.md). Both are installed; PyMySQL takes the
    MySQLdb name when chosen.
    """
    driver = env_str(f"{service}_MYSQL_DRIVER")  # MYSQL_DRIVER unless set
    if driver == "pymysql":
        import pymysql

        pymysql.install_as_MySQLdb()
    elif driver != "mysqlclient":
        raise ImproperlyConfigured(f"MYSQL_DRIVER must be pymysql or mysqlclient, not {driver!r}.")
    return driver


POOL_ENGINES = {
    "geventpool": "common.dbpool",
    "off": "common.dbpool.unpooled",
}


# DB_ACCOUNT: whose account a process of a service connects as (docs/configuration.md, "Database accounts").
DATABASE_ACCOUNTS = {
    # The service's own: the rows of its database, nothing else (<SERVICE> is ECOMMERCE or LMS).
    "app": ("{service}_DB_USER", "{service}_DB_PASSWORD"),
    # The owner: tables too, for the commands that create or bulk-load them (migrate, seeding,
    # the preload); the services themselves never hold its password.
    "owner": ("MYSQL_OWNER_USER", "MYSQL_OWNER_PASSWORD"),
}


def database_account(service: str) -> tuple[str, str]:
    """The names of the (user, password) variables this process connects with: the service's
    own account, or with DB_ACCOUNT=owner the owner's."""
    account = env_str("DB_ACCOUNT")
    if account not in DATABASE_ACCOUNTS:
        raise ImproperlyConfigured(
            f"DB_ACCOUNT must be one of {', '.join(DATABASE_ACCOUNTS)}, not {account!r}."
        )
    user, password = DATABASE_ACCOUNTS[account]
    return user.format(service=service), password.format(service=service)


def mysql_database(service: str, name: str) -> dict:
    """Django DATABASES entry for the project's MariaDB; host and port are shared, the account
    is the service's own (database_account). <SERVICE>_DB_POOL overrides DB_POOL for one
    service."""
    pool = env_str(f"{service}_DB_POOL")  # DB_POOL unless set
    if pool not in POOL_ENGINES:
        raise ImproperlyConfigured(f"DB_POOL must be one of {', '.join(POOL_ENGINES)}, not {pool!r}.")
    user, password = database_account(service)
    options = {"charset": "utf8mb4", "isolation_level": "read committed", "connect_timeout": 5}
    if env_str(f"{service}_MYSQL_DRIVER") == "pymysql":
        options.update(PYMYSQL_PLAIN)
    # A query whose answer does not come (the database host lost) fails the request with a
    # JSON 503 instead of holding it for TCP's minutes; the owner's migrations are never cut.
    read_timeout = env_float("DB_READ_TIMEOUT")
    if read_timeout > 0 and env_str("DB_ACCOUNT") == "app":
        options.update(read_timeout=read_timeout, write_timeout=read_timeout)
    return {
        "ENGINE": POOL_ENGINES[pool],
        "NAME": name,
        "HOST": env_str("MYSQL_HOST"),
        "PORT": env_int("MYSQL_PORT"),
        "USER": env_str(user),
        "PASSWORD": env_str(password),
        # Lesson 1 of the 2015 write-up: autocommit stays on, each request is one transaction.
        "AUTOCOMMIT": True,
        "ATOMIC_REQUESTS": True,
        # Pooled connections are "closed" into the pool at the end of each request.
        "CONN_MAX_AGE": 0,
        "OPTIONS": options,
        # Per worker process: at most MAX_CONNECTIONS open; a checkout waits CHECKOUT_TIMEOUT
        # seconds at most, then the request is answered 503.
        "POOL": {
            "MAX_CONNECTIONS": env_int("DB_POOL_SIZE"),
            "CHECKOUT_TIMEOUT": env_float("DB_POOL_TIMEOUT"),
            "PING_AFTER": env_float("DB_POOL_PING_AFTER"),
        },
        "TEST": {"CHARSET": "utf8mb4", "COLLATION": "utf8mb4_unicode_ci"},
    }


_PERIODS = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86400,
    "day": 86400,
}


def parse_rate(text: str) -> tuple[int, int] | None:
    """ "20/min" -> (20, 60); "off" (or "0", "") -> None. ValueError says what is wrong."""
    text = (text or "").strip().lower()
    if text in ("", "off", "0", "none"):
        return None
    count, _, period = text.partition("/")
    if not count.isdigit() or int(count) < 1 or period not in _PERIODS:
        raise ValueError(
            f"a rate is a number of requests per s, min, hour or day (e.g. 20/min) or off, not {text!r}"
        )
    return int(count), _PERIODS[period]


def env_rate(name: str) -> tuple[int, int] | None:
    try:
        return parse_rate(env_str(name))
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: {exc}") from None
