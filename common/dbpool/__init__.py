"""A bounded MySQL connection pool for Django under gevent (and under sync workers).

``ENGINE: "common.dbpool"`` is Django's MySQL backend whose connections come from a
per-process pool built on django-db-geventpool's pool core (see pool.py and
docs/decisions/0009-the-connection-pool-a-thin.md). The pool is configured by the ``POOL`` entry
of the DATABASES setting.
"""

from common.dbpool.pool import PoolExhausted

__all__ = ["PoolExhausted", "release", "warm_up"]


def release(using: str = "default") -> None:
    """Give the connection back to its pool now, e.g. before a slow outbound call.

    Django would keep it until the end of the request. Outside a pooled backend this does
    nothing: closing a plain connection would only cost a reconnect.
    """
    from django.db import connections

    connection = connections[using]
    if getattr(connection, "is_pooled", False) and not connection.in_atomic_block:
        connection.close()


def warm_up(using: str = "default") -> int:
    """Open the pool's first connections (gunicorn's post_worker_init); returns how many."""
    from django.db import connections

    connection = connections[using]
    if not getattr(connection, "is_pooled", False):
        return 0
    return connection.pool.warm_up(connection.settings_dict.get("POOL", {}).get("WARM", 2))
