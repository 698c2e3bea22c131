"""Django's MySQL backend with pooled connections (ENGINE "common.dbpool").

Django "closes" its connection at the end of every request (CONN_MAX_AGE = 0) and whenever
common.dbpool.release() is called; here that returns it to the pool. A connection that saw
an error, or is closed inside a transaction (Django's, or one the server says is open, which
Django did not begin: a raw BEGIN), is closed for real instead, and the server rolls back what
it left open: a pooled session never keeps its row locks for the next request to find. A reused connection
keeps the session state Django set when it was opened, so it is not set again.
"""

import os

from django.db.backends.mysql import base as mysql

from common.dbpool.pool import MySQLConnectionPool
from common.dbpool.server_facts import ServerFactsOnce
from common.dbpool.transactions import SERVER_STATUS_IN_TRANS, ExplicitTransactions
from common.environment import get
from common.timing import TimedCommits

_pools: dict[tuple[str, int], MySQLConnectionPool] = {}

# For a POOL that leaves some out: the table's defaults (settings/_env.py sets all three).
DEFAULTS = {
    "MAX_CONNECTIONS": get("DB_POOL_SIZE", env={}),
    "CHECKOUT_TIMEOUT": get("DB_POOL_TIMEOUT", env={}),
    "PING_AFTER": get("DB_POOL_PING_AFTER", env={}),
    "WARM": 2,
}


class DatabaseWrapper(ServerFactsOnce, ExplicitTransactions, TimedCommits, mysql.DatabaseWrapper):
    is_pooled = True

    @property
    def pool(self) -> MySQLConnectionPool:
        # Keyed by pid: a pool made before gunicorn forks must never be shared by workers.
        key = (self.alias, os.getpid())
        pool = _pools.get(key)
        if pool is None:
            options = {**DEFAULTS, **self.settings_dict.get("POOL", {})}
            params = self.get_connection_params()
            pool = MySQLConnectionPool(
                connect=lambda: super(DatabaseWrapper, self).get_new_connection(params),
                maxsize=options["MAX_CONNECTIONS"],
                timeout=options["CHECKOUT_TIMEOUT"],
                ping_after=options["PING_AFTER"],
            )
            _pools[key] = pool
        return pool

    def get_new_connection(self, conn_params):
        return self.pool.get()

    def init_connection_state(self):
        if getattr(self.connection, "_pool_initialised", False):
            return
        super().init_connection_state()
        self.connection._pool_initialised = True

    def _server_in_transaction(self) -> bool:
        """The server's status flag of the last answer (PyMySQL keeps it; mysqlclient does not)."""
        return bool(getattr(self.connection, "server_status", 0) & SERVER_STATUS_IN_TRANS)

    def _close(self):
        if self.connection is None:
            return
        with self.wrap_database_errors:
            if self.in_atomic_block or self.errors_occurred or self._server_in_transaction():
                self.pool.discard(self.connection, broken=self.errors_occurred)
            else:
                self.pool.put(self.connection)
