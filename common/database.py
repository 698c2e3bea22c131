"""The health check's question to the database, asked the same way by both services."""

import logging

from django.db import connections

logger = logging.getLogger(__name__)


def unreachable(using: str = "default") -> str | None:
    """Why the database does not answer ``SELECT 1`` (its error, shortened, also logged), or None
    if it does."""
    try:
        with connections[using].cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # any database failure means "not healthy"
        reason = str(exc)[:200]
        logger.warning("health: the database does not answer: %s", reason)
        return reason
    return None
