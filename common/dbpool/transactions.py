"""Transactions as BEGIN ... COMMIT in a session that stays in autocommit (both backends)."""

# The server's "a transaction is open" status flag (MySQL protocol, SERVER_STATUS_IN_TRANS).
SERVER_STATUS_IN_TRANS = 1


class ExplicitTransactions:
    """For a MySQL backend's DatabaseWrapper: Django opens a transaction by switching the
    session's autocommit off and closes it by COMMIT and switching autocommit on again; here a
    transaction is an explicit one in a session that never leaves autocommit."""

    def _set_autocommit(self, autocommit):
        """A transaction is an explicit one (BEGIN ... COMMIT) in a session that stays in
        autocommit, instead of Django's SET autocommit=0 ... COMMIT, SET autocommit=1: one round
        trip to MariaDB fewer for every transaction (two per free purchase). The server's own
        status flags say which state the session is in, so a fresh connection (PyMySQL opens
        it with autocommit off) is still switched on, and a transaction left open when
        autocommit is asked for is committed, as SET autocommit=1 would have done.
        mysqlclient does not show those flags: with it, Django's way."""
        if not hasattr(self.connection, "server_status"):
            return super()._set_autocommit(autocommit)
        with self.wrap_database_errors:
            connection = self.connection
            if not connection.get_autocommit():
                connection.autocommit(autocommit)
                return
            if autocommit:
                if connection.server_status & SERVER_STATUS_IN_TRANS:
                    connection.commit()
                return
            with connection.cursor() as cursor:
                cursor.execute("BEGIN")
