"""Reading configuration from the environment: one helper per type, one error message."""

import os

from django.core.exceptions import ImproperlyConfigured

_MISSING = object()


def env_str(name: str, default=_MISSING) -> str:
    value = os.environ.get(name)
    if value is None or value == "":
        if default is _MISSING:
            raise ImproperlyConfigured(f"Set the environment variable {name}.")
        return default
    return value


def require_secrets(names: tuple[str, ...], deployment: str) -> None:
    """Refuse to start a deployment (``deployment`` names it in the message) unless every one of
    ``names`` is set, and to none of the local defaults: those are in the repository for
    everyone to read ("local-only-…", "orders-local-password")."""
    missing = [name for name in names if not os.environ.get(name)]
    if missing:
        raise ImproperlyConfigured(f"{deployment} need these environment variables: " + ", ".join(missing))
    local = [name for name in names if "local-only" in os.environ[name] or "-local-" in os.environ[name]]
    if local:
        raise ImproperlyConfigured(
            f"these {deployment} still have a local default value: " + ", ".join(local)
        )


def _env_number(name: str, default, kind, description: str):
    raw = os.environ.get(name, "")
    if raw == "":
        return default
    try:
        return kind(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {description}, not {raw!r}.") from None


def env_int(name: str, default: int) -> int:
    return _env_number(name, default, int, "a whole number")


def env_float(name: str, default: float) -> float:
    return _env_number(name, default, float, "a number")


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if raw == "":
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {raw!r}.")


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name, "")
    if raw.strip() == "":
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def use_mysql_driver(service: str) -> str:
    """Load the MySQL driver named by <SERVICE>_MYSQL_DRIVER or MYSQL_DRIVER before Django
    imports MySQLdb.

    ``pymysql`` (the default) is pure Python and yields to gevent while it waits on the
    server; ``mysqlclient`` is C and blocks the whole gevent worker while a query waits (see
    docs/decisions.md). Both are installed; PyMySQL takes the MySQLdb name when chosen.
    """
    driver = env_str(f"{service}_MYSQL_DRIVER", env_str("MYSQL_DRIVER", "pymysql"))
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


def mysql_database(service: str, name: str, pool_size: int = 10) -> dict:
    """Django DATABASES entry for the project's MariaDB; host, port and user are shared.
    <SERVICE>_DB_POOL overrides DB_POOL for one service."""
    pool = env_str(f"{service}_DB_POOL", env_str("DB_POOL", "geventpool"))
    if pool not in POOL_ENGINES:
        raise ImproperlyConfigured(f"DB_POOL must be one of {', '.join(POOL_ENGINES)}, not {pool!r}.")
    return {
        "ENGINE": POOL_ENGINES[pool],
        "NAME": name,
        "HOST": env_str("MYSQL_HOST", "127.0.0.1"),
        "PORT": env_int("MYSQL_PORT", 13306),
        "USER": env_str("MYSQL_USER", "orders"),
        "PASSWORD": env_str("MYSQL_PASSWORD", "orders-local-password"),
        # Lesson 1 of the 2015 write-up: autocommit stays on, each request is one transaction.
        "AUTOCOMMIT": True,
        "ATOMIC_REQUESTS": True,
        # Pooled connections are "closed" into the pool at the end of each request.
        "CONN_MAX_AGE": 0,
        "OPTIONS": {
            "charset": "utf8mb4",
            "isolation_level": "read committed",
            "connect_timeout": 5,
        },
        # Per worker process: at most MAX_CONNECTIONS open; a checkout waits CHECKOUT_TIMEOUT
        # seconds at most, then the request is answered 503.
        "POOL": {
            "MAX_CONNECTIONS": env_int("DB_POOL_SIZE", pool_size),
            "CHECKOUT_TIMEOUT": env_float("DB_POOL_TIMEOUT", 5.0),
            "PING_AFTER": env_float("DB_POOL_PING_AFTER", 1.0),
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


def env_rate(name: str, default: str) -> tuple[int, int] | None:
    try:
        return parse_rate(env_str(name, default))
    except ValueError as exc:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(f"{name}: {exc}") from None
