"""The server's facts (version, sql_mode, ...) read once per process, not once per connection object.

Django's MySQL backend reads them with ``SELECT VERSION(), @@sql_mode, ...`` the first time a
DatabaseWrapper needs one (an INSERT ... RETURNING asks for the version) and keeps them on that
wrapper. Under gevent every greenlet has its own wrapper and gunicorn starts a greenlet per
client connection, so a service whose clients each open a connection (the LMS: every learner of
a load run is a new browser) sent that statement once per request: one purchase in five of the
LMS's statements. The facts are the server's, the same for every connection of the process to
one database alias, so the first wrapper's reading is kept for the others.

A server upgraded in place (a different version or sql_mode under running workers) is seen by
workers started after it; restart the services after upgrading MariaDB, as for any schema change.
"""

import os

_facts: dict[tuple[str, int], dict] = {}


class ServerFactsOnce:
    """For a MySQL backend's DatabaseWrapper: ``mysql_server_data`` read once per process and alias."""

    @property
    def mysql_server_data(self):
        key = (self.alias, os.getpid())  # keyed by pid: a reading taken before a fork is redone
        facts = _facts.get(key)
        if facts is None:
            facts = _facts[key] = super().mysql_server_data
        return facts


def forget() -> None:
    """Drop every reading (tests)."""
    _facts.clear()
