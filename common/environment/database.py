"""The private MariaDB, the accounts by job (docs/configuration.md, "Database accounts") and the
services' connection pools."""

from common.environment.model import Section, Variable

SECTION = Section(
    "The database",
    (
        Variable("MYSQL_HOST", "127.0.0.1", "str", "database host the services use", shell=True),
        Variable("MYSQL_PORT", "13306", "int", "private MariaDB port (127.0.0.1)", shell=True),
        Variable("ECOMMERCE_DB_NAME", "ecommerce", "str", "ecommerce's database", shell=True),
        Variable("LMS_DB_NAME", "lms", "str", "lms_stub's database", shell=True),
        # The accounts by job (docs/configuration.md, "Database accounts"); deployments set their own
        # passwords.
        Variable(
            "ECOMMERCE_DB_USER",
            "ecommerce_app",
            "str",
            "ecommerce's own account: rows of its database only (SELECT, INSERT, UPDATE, DELETE)",
            shell=True,
        ),
        Variable(
            "ECOMMERCE_DB_PASSWORD",
            "ecommerce-app-local-password",
            "str",
            "its password",
            shell=True,
            shown="a local default",
        ),
        Variable(
            "LMS_DB_USER",
            "lms_app",
            "str",
            "lms_stub's own account: rows of its database only (SELECT, INSERT, UPDATE, DELETE)",
            shell=True,
        ),
        Variable(
            "LMS_DB_PASSWORD",
            "lms-app-local-password",
            "str",
            "its password",
            shell=True,
            shown="a local default",
        ),
        Variable(
            "MYSQL_OWNER_USER",
            "orders",
            "str",
            "the owner account: the databases' tables and rows (migrations, seeding, the preload, the tests)",
            shell=True,
        ),
        Variable(
            "MYSQL_OWNER_PASSWORD",
            "orders-local-password",
            "str",
            "its password",
            shell=True,
            shown="a local default",
        ),
        Variable(
            "MYSQL_MONITOR_USER",
            "monitor",
            "str",
            "the load suite's readings: server status, statement digests, table sizes; no row of a service",
            shell=True,
        ),
        Variable(
            "BALANCER_STATS_URL",
            None,
            "str",
            "the load balancer's stats CSV (`http://<lb>:8404/stats;csv`): per-server request counts in the "
            "load reports; unset: not read",
            shown="not read",
        ),
        Variable("BALANCER_STATS_USER", "stats", "str", "its read-only user"),
        Variable(
            "BALANCER_STATS_PASSWORD",
            None,
            "str",
            "its password (`vault_haproxy_stats_password`)",
            shown="unset",
        ),
        Variable(
            "MYSQL_MONITOR_PASSWORD",
            "monitor-local-password",
            "str",
            "its password",
            shell=True,
            shown="a local default",
        ),
        Variable(
            "DB_ACCOUNT",
            "app",
            "str",
            "`owner`: a management command connects as MYSQL_OWNER_USER instead of its service's account "
            "(`migrate`, `seed_catalog`, `ensure_staff`, the preload)",
        ),
        Variable(
            "MYSQL_DRIVER",
            "pymysql",
            "str",
            "`mysqlclient` blocks a gevent worker while a query waits "
            "(docs/decisions/0008-gevent-workers-with-pymysql.md)",
        ),
        Variable("DB_POOL", "geventpool", "str", "`off`: a new MySQL connection per request"),
        Variable("DB_POOL_SIZE", "10", "int", "pooled connections per worker process, at most"),
        Variable(
            "DB_POOL_TIMEOUT",
            "5",
            "float",
            "seconds a request waits for a connection, then `503 pool_exhausted`",
        ),
        Variable("DB_POOL_PING_AFTER", "1", "float", "a connection idle this long is pinged before reuse"),
        Variable(
            "DB_READ_TIMEOUT",
            "0",
            "float",
            "seconds a query's answer may take before the request fails `503` (a lost database host); "
            "0: no limit. The owner's commands (migrations) are never cut",
        ),
        Variable(
            "MYSQL_BUFFER_POOL_SIZE", "512M", "str", "private MariaDB: innodb_buffer_pool_size", shell=True
        ),
        Variable(
            "MYSQL_FLUSH_LOG_AT_TRX_COMMIT",
            "1",
            "int",
            "private MariaDB: innodb_flush_log_at_trx_commit",
            shell=True,
        ),
        Variable(
            "MYSQL_LOCK_WAIT_TIMEOUT", "50", "int", "private MariaDB: innodb_lock_wait_timeout", shell=True
        ),
        Variable("MYSQL_MAX_CONNECTIONS", "500", "int", "private MariaDB: max_connections", shell=True),
        Variable("MYSQL_PERFORMANCE_SCHEMA", "ON", "str", "private MariaDB: performance_schema", shell=True),
        Variable("TEST_MYSQL_DIR", "{ROOT}/var/test/mysql", "str", "`make test`'s own MariaDB", shell=True),
        Variable("TEST_MYSQL_PORT", None, "int", "`make test`'s MariaDB port", shown="a free port"),
    ),
)
