"""Every MySQL connection the project opens with PyMySQL says it is plain text, as it always was
in effect: by default PyMySQL (2.x) builds a TLS context with the system's certificates for each
connection (35 ms of CPU on this project's VM, against 0.5 ms for the connection itself) and
then talks plain text, the project's MariaDB offering no TLS. A service's pooled connections
(each worker opens up to DB_POOL_SIZE of them, DB_POOL=off one per request) and the load
suite's monitoring connections alike."""

import pytest
from django.db import connection

from common.monitor_account import mysql_connect

pytestmark = pytest.mark.django_db


def test_the_services_connections_build_no_tls_context():
    connection.ensure_connection()
    raw = connection.connection
    assert type(raw).__module__.startswith("pymysql")  # the default driver
    assert raw.ssl is False and not hasattr(raw, "ctx")
    with connection.cursor() as cursor:
        cursor.execute("SHOW SESSION STATUS LIKE 'Ssl_version'")
        assert cursor.fetchone()[1] == ""  # and the session is what it always was: plain text


def test_the_load_suites_monitoring_connections_build_no_tls_context():
    monitor = mysql_connect()
    try:
        assert monitor.ssl is False and not hasattr(monitor, "ctx")
    finally:
        monitor.close()
