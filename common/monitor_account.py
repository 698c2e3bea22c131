"""A MySQL connection as the monitoring account: the load suite's readings, the audit's facts, the
preload and the run's provenance use it, and so does the machine's calibration (common/calibration)
that `make bench` takes too, which is why it lives here and not in the suite."""

import pymysql

from common.environment import get


def mysql_connect(database: str | None = None):
    """A connection as the monitoring account: server status and variables, the statement
    digests, the tables' sizes and statistics; never a row of the services' tables."""
    return pymysql.connect(
        host=get("MYSQL_HOST"),
        port=get("MYSQL_PORT"),
        user=get("MYSQL_MONITOR_USER"),
        password=get("MYSQL_MONITOR_PASSWORD"),
        database=database,
        autocommit=True,
        connect_timeout=5,
        # Plain text, as the services' connections (settings/_env.py PYMYSQL_PLAIN): otherwise
        # PyMySQL builds a TLS context for each connection (35 ms of CPU) the server then declines.
        ssl_disabled=True,
    )
