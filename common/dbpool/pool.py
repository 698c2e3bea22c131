"""The pool: django-db-geventpool's DB-agnostic core, bounded in size and in time.

The core keeps idle connections in a gevent queue and tracks every open one. Three things are
added for MySQL and for a service that must not hang:

* a slot (a semaphore of ``maxsize``) is taken before a connection is handed out or opened,
  so concurrent checkouts can never open more than ``maxsize`` connections;
* a checkout waits at most ``timeout`` seconds for a slot and then raises PoolExhausted,
  which the API answers with 503 and Retry-After;
* a connection idle for longer than ``ping_after`` seconds is pinged before it is reused, and
  replaced if the server has gone (restart, wait_timeout); busy connections skip the ping;
* once a connection is discarded as broken, every connection that went idle before that moment
  is pinged before its next use too: after a MariaDB restart one request per process fails,
  not one per pooled connection.
"""

import time

from django.db.utils import OperationalError
from django_db_geventpool.backends.pool import DatabaseConnectionPool
from gevent import queue
from gevent.lock import BoundedSemaphore


class PoolExhausted(OperationalError):
    """No pooled connection became free within the checkout timeout."""


class MySQLConnectionPool(DatabaseConnectionPool):
    def __init__(self, connect, maxsize: int, timeout: float, ping_after: float):
        super().__init__(maxsize=maxsize, reuse=maxsize)
        self._connect = connect
        self.timeout = timeout
        self.ping_after = ping_after
        self._slots = BoundedSemaphore(maxsize)
        self.opened = 0  # connections this process opened, for measurements
        self._suspect_before = 0.0  # idle since before this instant: ping before use

    def create_connection(self):
        conn = self._connect()
        self.opened += 1
        return conn

    def check_usable(self, conn) -> None:
        idle_since = getattr(conn, "_pool_idle_since", 0.0)
        if time.monotonic() - idle_since > self.ping_after or idle_since < self._suspect_before:
            conn.ping()

    def get(self):
        if not self._slots.acquire(timeout=self.timeout):
            raise PoolExhausted(
                f"no database connection became free within {self.timeout:g} s ({self.maxsize} per worker)"
            )
        try:
            while True:
                try:
                    conn = self.pool.get_nowait()
                except queue.Empty:
                    conn = self.create_connection()
                    self._conns.add(conn)
                    return conn
                try:
                    self.check_usable(conn)
                    return conn
                except Exception:  # the server closed it: replace it
                    self._drop(conn)
        except BaseException:
            self._slots.release()
            raise

    def put(self, conn) -> None:
        conn._pool_idle_since = time.monotonic()
        super().put(conn)
        self._slots.release()

    def discard(self, conn, broken: bool = False) -> None:
        """Close a checked-out connection instead of returning it (broken, or mid-transaction).
        A broken one makes the idle connections suspect: the server may have restarted."""
        if broken:
            self._suspect_before = time.monotonic()
        self._drop(conn)
        self._slots.release()

    def _drop(self, conn) -> None:
        try:
            conn.close()
        except Exception:  # already closed by the server
            pass
        self._conns.discard(conn)

    def warm_up(self, count: int | None = None) -> int:
        count = min(self.maxsize, count or self.maxsize)
        taken = [self.get() for _ in range(count)]
        for conn in taken:
            self.put(conn)
        return len(taken)

    @property
    def idle(self) -> int:
        return self.pool.qsize()
