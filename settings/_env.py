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


def mysql_database(name: str) -> dict:
    """Django DATABASES entry for the project's MariaDB; host, port and user are shared."""
    return {
        "ENGINE": "django.db.backends.mysql",
        "NAME": name,
        "HOST": env_str("MYSQL_HOST", "127.0.0.1"),
        "PORT": env_int("MYSQL_PORT", 13306),
        "USER": env_str("MYSQL_USER", "orders"),
        "PASSWORD": env_str("MYSQL_PASSWORD", "orders-local-password"),
        # Lesson 1 of the 2015 write-up: autocommit stays on, each request is one transaction.
        "AUTOCOMMIT": True,
        "ATOMIC_REQUESTS": True,
        "CONN_MAX_AGE": env_int("MYSQL_CONN_MAX_AGE", 0),
        "OPTIONS": {
            "charset": "utf8mb4",
            "isolation_level": "read committed",
            "connect_timeout": 5,
        },
        "TEST": {"CHARSET": "utf8mb4", "COLLATION": "utf8mb4_unicode_ci"},
    }
