"""The health check's question to the database, asked the same way by both services."""

from django.db import connections


def unreachable(using: str = "default") -> str | None:
    """Why the database does not answer ``SELECT 1`` (its error, shortened), or None if it does."""
    try:
        with connections[using].cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # any database failure means "not healthy"
        return str(exc)[:200]
    return None
