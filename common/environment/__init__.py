"""The project's environment variables: one table of their names, their defaults for a developer's
machine, their kinds and what they mean, and the readers that apply it.

Every service setting, gunicorn configuration, script and the load suite read a variable of this
table through ``get`` (or a typed reader) and never write its default again; the scripts take
the shell form of the same table (``scripts/lib.sh`` evaluates it).

A default may name other variables, ``{LMS_PORT}``, or the checkout, ``{ROOT}``: it is resolved
with their values as this environment sets them (``LMS_PORT=28000`` moves ``LMS_URL`` too). An
unset variable and one set to "" both take the default; a variable without a default reads as
None. A value that does not parse raises ``BadSetting``, which names the variable.

A few variables have a second default, for deployments (``production``): what a developer wants
to see is not always what a deployment should show (SERVER_TIMING). settings.production reads
them with ``production=True``; everything else, the shell form included, takes the first.

Plain Python, standard library only: the system python3 runs it before the virtualenv exists.

    python3 -m common.environment --shell [NAME ...]   export lines for bash (scripts/lib.sh)
    python3 -m common.environment --markdown           the table, as README.md shows it
"""

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

KINDS = ("str", "int", "float", "bool", "list")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")
# Names a default may use that are not variables: the checkout this file is in.
BUILTINS = {"ROOT": str(ROOT)}


class BadSetting(ValueError):
    """A variable's value that cannot be read as its kind; the message names the variable."""

    def __init__(self, name: str, message: str):
        super().__init__(message)
        self.name = name


class UnknownVariable(KeyError):
    """A name that is not in the table: add it there, with its default and meaning."""

    def __str__(self) -> str:
        return f"{self.args[0]} is not in the table of common/environment.py"


@dataclass(frozen=True)
class Variable:
    name: str
    # As the environment would hold it ("13306", "true", "127.0.0.1,localhost"), with {NAME}
    # placeholders; None: no default (unset reads as None, or the reader computes one: shown).
    default: str | None
    kind: str
    description: str
    # scripts/lib.sh exports it (its shell form); the others only the Python readers apply.
    shell: bool = False
    # What the markdown table shows as the default, when it is not the default's text.
    shown: str | None = None
    # The default under settings.production, when a deployment must not have the developer's
    # (readers given production=True); no placeholders.
    production: str | None = None

    @property
    def references(self) -> list[str]:
        return _PLACEHOLDER.findall(self.default or "")


def _service(prefix: str, service: str, port: str, max_in_flight: str) -> list[Variable]:
    """What both gunicorn configurations read, under each service's prefix (ECOMMERCE, LMS)."""
    return [
        Variable(f"{prefix}_PORT", port, "int", f"{service} listens on 127.0.0.1 at this port", shell=True),
        Variable(
            f"{prefix}_BIND", f"127.0.0.1:{{{prefix}_PORT}}", "str", f"{service}'s gunicorn bind address"
        ),
        Variable(f"{prefix}_WORKERS", None, "int", f"{service}'s gunicorn workers", shown="2 × cores + 1"),
        Variable(
            f"{prefix}_WORKER_CLASS",
            "gevent",
            "str",
            f"{service}'s gunicorn worker class (`sync` for comparison)",
        ),
        Variable(
            f"{prefix}_HTTP_PARSER",
            "fast",
            "str",
            f"{service}'s HTTP request parser: `fast` (gunicorn_h1c's, in C) or `python` (gunicorn's own, "
            "for comparison)",
        ),
        Variable(
            f"{prefix}_WORKER_CONNECTIONS",
            "1000",
            "int",
            f"connections a {service} gevent worker holds open (a greenlet each, idle kept-alive ones too)",
        ),
        Variable(
            f"{prefix}_MAX_IN_FLIGHT",
            max_in_flight,
            "int",
            f"requests doing a {service} worker's work at most; past it new work (purchases, order "
            "reads, logins) is answered `503 overloaded` at once (common/shedding.py); 0: admission "
            "control off, whatever the policy",
        ),
        Variable(
            f"{prefix}_ADMISSION",
            "in-flight",
            "str",
            f"how a {service} worker decides to refuse new work: `in-flight` (past {prefix}_MAX_IN_FLIGHT) "
            f"or `queue-delay` (while its accepted work waits for the CPU: {prefix}_QUEUE_TARGET_MS); "
            "common/shedding.py",
        ),
        Variable(
            f"{prefix}_QUEUE_TARGET_MS",
            "5",
            "int",
            f"`queue-delay`: a {service} worker refuses new work once its loop has run this late for "
            f"all of {prefix}_QUEUE_INTERVAL_MS (common/queueing.py)",
        ),
        Variable(
            f"{prefix}_QUEUE_INTERVAL_MS",
            "100",
            "int",
            f"`queue-delay`: how long every sample must stay above {prefix}_QUEUE_TARGET_MS before a "
            f"{service} worker refuses new work",
        ),
        Variable(
            f"{prefix}_WORKER_TIMEOUT",
            "30",
            "int",
            f"seconds a {service} worker may stay silent before it is killed",
        ),
        Variable(
            f"{prefix}_GRACEFUL_TIMEOUT", "30", "int", f"seconds {service}'s workers get to finish on restart"
        ),
        Variable(
            f"{prefix}_MAX_REQUESTS", "20000", "int", f"requests after which a {service} worker is recycled"
        ),
        Variable(f"{prefix}_MAX_REQUESTS_JITTER", "2000", "int", f"random spread of {prefix}_MAX_REQUESTS"),
        Variable(f"{prefix}_ACCESS_LOG", "false", "bool", f"write var/log/{service}-access.log"),
        Variable(f"{prefix}_ERROR_LOG", f"{{VAR_DIR}}/log/{service}.log", "str", f"{service}'s gunicorn log"),
        Variable(f"{prefix}_MYSQL_DRIVER", "{MYSQL_DRIVER}", "str", f"MYSQL_DRIVER for {service} only"),
        Variable(f"{prefix}_DB_POOL", "{DB_POOL}", "str", f"DB_POOL for {service} only"),
    ]


TABLE: tuple[Variable, ...] = (
    # --- Where things are ----------------------------------------------------------------------
    Variable(
        "VAR_DIR", "{ROOT}/var", "str", "runtime files: databases, logs, pid files, load runs", shell=True
    ),
    Variable("VENV", "{ROOT}/.venv", "str", "the virtualenv scripts/bootstrap.sh makes", shell=True),
    Variable("PYTHON", "{VENV}/bin/python", "str", "the Python the scripts run", shell=True),
    Variable(
        "MYSQL_DIR",
        "{VAR_DIR}/mysql",
        "str",
        "the private MariaDB's datadir, socket and pid file",
        shell=True,
    ),
    Variable(
        "STATIC_DIR",
        "{VAR_DIR}/static",
        "str",
        "collected static files (stacks of a checkout share them)",
        shell=True,
    ),
    # --- The database ----------------------------------------------------------------------------
    Variable("MYSQL_HOST", "127.0.0.1", "str", "database host the services use", shell=True),
    Variable("MYSQL_PORT", "13306", "int", "private MariaDB port (127.0.0.1)", shell=True),
    Variable("ECOMMERCE_DB_NAME", "ecommerce", "str", "ecommerce's database", shell=True),
    Variable("LMS_DB_NAME", "lms", "str", "lms_stub's database", shell=True),
    # The accounts by job (README.md, "Database accounts"); deployments set their own passwords.
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
        "BALANCER_STATS_PASSWORD", None, "str", "its password (`vault_haproxy_stats_password`)", shown="unset"
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
        "`mysqlclient` blocks a gevent worker while a query waits (docs/decisions.md)",
    ),
    Variable("DB_POOL", "geventpool", "str", "`off`: a new MySQL connection per request"),
    Variable("DB_POOL_SIZE", "10", "int", "pooled connections per worker process, at most"),
    Variable(
        "DB_POOL_TIMEOUT", "5", "float", "seconds a request waits for a connection, then `503 pool_exhausted`"
    ),
    Variable("DB_POOL_PING_AFTER", "1", "float", "a connection idle this long is pinged before reuse"),
    Variable("MYSQL_BUFFER_POOL_SIZE", "512M", "str", "private MariaDB: innodb_buffer_pool_size", shell=True),
    Variable(
        "MYSQL_FLUSH_LOG_AT_TRX_COMMIT",
        "1",
        "int",
        "private MariaDB: innodb_flush_log_at_trx_commit",
        shell=True,
    ),
    Variable("MYSQL_LOCK_WAIT_TIMEOUT", "50", "int", "private MariaDB: innodb_lock_wait_timeout", shell=True),
    Variable("MYSQL_MAX_CONNECTIONS", "500", "int", "private MariaDB: max_connections", shell=True),
    Variable("MYSQL_PERFORMANCE_SCHEMA", "ON", "str", "private MariaDB: performance_schema", shell=True),
    Variable("TEST_MYSQL_DIR", "{ROOT}/var/test/mysql", "str", "`make test`'s own MariaDB", shell=True),
    Variable("TEST_MYSQL_PORT", None, "int", "`make test`'s MariaDB port", shown="a free port"),
    # --- Addresses -------------------------------------------------------------------------------
    *_service("LMS", "lms_stub", "18000", max_in_flight="4"),
    *_service("ECOMMERCE", "ecommerce", "18130", max_in_flight="4"),
    Variable("LOCUST_PORT", "8089", "int", "Locust web UI port (127.0.0.1)", shell=True),
    Variable(
        "LMS_URL",
        "http://127.0.0.1:{LMS_PORT}",
        "str",
        "where ecommerce and Locust reach the LMS",
        shell=True,
    ),
    Variable(
        "ECOMMERCE_URL",
        "http://127.0.0.1:{ECOMMERCE_PORT}",
        "str",
        "where the LMS and the load suite's paid journey reach ecommerce",
        shell=True,
    ),
    Variable(
        "HTTP_CA_BUNDLE",
        None,
        "str",
        "PEM file of the certificate authorities the services' calls to each other trust over https "
        "(a load balancer's private CA)",
        shown="the system's",
    ),
    Variable(
        "ECOMMERCE_CPUS", None, "str", "taskset CPU list ecommerce is pinned to (`0-3`)", shown="not pinned"
    ),
    # --- Secrets (local defaults only: deployments refuse them) ----------------------------------
    Variable(
        "ECOMMERCE_SECRET_KEY",
        "local-only-ecommerce-secret-key-do-not-deploy",
        "str",
        "ecommerce's Django secret key",
        shown="a local default",
    ),
    Variable(
        "LMS_SECRET_KEY",
        "local-only-lms-secret-key-do-not-deploy",
        "str",
        "lms_stub's Django secret key",
        shown="a local default",
    ),
    Variable(
        "JWT_SECRET_KEY",
        "local-only-jwt-secret-do-not-deploy",
        "str",
        "signs learner tokens (shared by both services, and the load suite's paid journey)",
        shown="a local default",
    ),
    Variable(
        "STAFF_JWT_SECRET_KEY",
        None,
        "str",
        "signs the only tokens that reach a staff account through ecommerce's API (a key of its own, "
        "never JWT_SECRET_KEY, held by no Locust host); unset: no token reaches staff; `make up` "
        "generates one into `var/staff-jwt-secret`",
        shown="unset",
    ),
    Variable("JWT_ISSUER", "lms-stub", "str", "learner tokens' `iss` (shared; must match)"),
    Variable(
        "EDX_API_KEY",
        "local-only-edx-api-key",
        "str",
        "key for the enrollment API (shared)",
        shown="a local default",
    ),
    Variable(
        "LMS_FAULT_API_KEY",
        "local-only-fault-api-key",
        "str",
        "key for lms_stub's fault API (`X-Fault-Api-Key`); a deployed stand-in with LMS_FAULT_CONTROL on "
        "needs its own, not EDX_API_KEY",
        shown="a local default",
    ),
    Variable(
        "CYBERSOURCE_SECRET_KEY",
        "local-only-cybersource-secret-key",
        "str",
        "the shop's payment processor profile secret: ecommerce signs checkout forms and checks "
        "notifications with it (edX's 2015 load client reads the same name); lms_stub's stand-in has "
        "its own (LMS_PROCESSOR_SECRET_KEY)",
        shown="a local default",
    ),
    Variable(
        "LMS_REQUIRE_SECRETS",
        "false",
        "bool",
        "`true`: lms_stub refuses missing secrets and the values the repository publishes (deployments)",
    ),
    Variable("ECOMMERCE_STAFF_USER", "staff", "str", "dashboard user `make up` creates", shell=True),
    Variable(
        "ECOMMERCE_STAFF_EMAIL",
        None,
        "str",
        "e-mail address `ensure_staff` gives that user: set one only its operators read; unset, it has "
        "none (no published address anyone can ask a password reset for)",
        shown="none",
    ),
    Variable(
        "ECOMMERCE_STAFF_PASSWORD",
        None,
        "str",
        "dashboard password of the staff user",
        shown="generated once into `var/staff-password`",
    ),
    # --- ecommerce -------------------------------------------------------------------------------
    Variable("ECOMMERCE_DEBUG", "false", "bool", "Django DEBUG of ecommerce"),
    Variable(
        "ECOMMERCE_STOREFRONT",
        None,
        "bool",
        "Oscar's storefront (registration, basket, checkout, catalogue, accounts); off, its pages answer "
        "404 and /accounts/login/ leads to the dashboard's login; on under settings.production: a WARNING",
        shown="`true`; `false` under settings.production",
    ),
    Variable("ECOMMERCE_ALLOWED_HOSTS", "127.0.0.1,localhost", "list", "ecommerce's ALLOWED_HOSTS"),
    Variable(
        "ECOMMERCE_LOGIN_FAILURES",
        "5",
        "int",
        "failed dashboard logins of one username after which it is locked out (django-axes; 429)",
    ),
    Variable(
        "ECOMMERCE_LOGIN_LOCKOUT_SECONDS",
        "900",
        "int",
        "how long a locked-out username stays refused (each further try starts it again); "
        "`manage.py axes_reset_username NAME` lifts it",
    ),
    Variable("ECOMMERCE_MAX_BODY_BYTES", "65536", "int", "largest request body ecommerce parses"),
    Variable("JWT_LEEWAY_SECONDS", "5", "int", "clock skew allowed on a token's `exp`"),
    Variable(
        "JWT_MAX_LIFETIME_SECONDS",
        "3600",
        "int",
        "a token whose `exp` lies further ahead than this is refused (401), whatever key signed it",
    ),
    Variable(
        "ECOMMERCE_SMTP_HOST",
        None,
        "str",
        "settings.production sends mail (Oscar's, the dashboard's password resets) through this SMTP "
        "server; unset: no mail is sent at all (never to a log)",
        shown="unset",
    ),
    Variable("ECOMMERCE_SMTP_PORT", "587", "int", "its port"),
    Variable("ECOMMERCE_SMTP_USER", "", "str", "its user", shown="none"),
    Variable("ECOMMERCE_SMTP_PASSWORD", "", "str", "its password", shown="none"),
    Variable("ECOMMERCE_SMTP_STARTTLS", "true", "bool", "STARTTLS to it"),
    Variable(
        "LMS_ENROLLMENT_TIMEOUT",
        "7",
        "float",
        "seconds ecommerce may spend on the enrollment calls of one order",
    ),
    Variable(
        "ORDER_COUNTER",
        "events",
        "str",
        "`oscar`: Oscar's own per-order counter update (one locked row per product), for comparison runs",
    ),
    Variable("MAX_BASKET_PRODUCTS", "10", "int", "products per basket"),
    Variable(
        "ECOMMERCE_ORDER_PREFIX",
        "OSCR",
        "str",
        "order numbers are `<prefix>-<basket id + 100000>`, as Otto's were (capitals and digits)",
    ),
    Variable(
        "IDEMPOTENCY_WAIT_SECONDS",
        "2",
        "float",
        "how long a replayed key waits for a first request still running",
    ),
    Variable(
        "ECOMMERCE_LEARNER_RATE",
        "20/min",
        "str",
        "purchases one learner may make per period (`N/s`, `/min`, `/hour`, `/day`), counted in the "
        "database; over it: 429 with Retry-After; `off` for load runs that reuse their learners",
    ),
    Variable(
        "STALE_OPEN_ORDER_SECONDS",
        "300",
        "int",
        "an order Open this long lost its fulfilment; `retry_fulfillment --all` takes it",
    ),
    Variable(
        "ROLLUP_INTERVAL",
        "1",
        "float",
        "seconds between folds of purchase events into Oscar's records",
        shell=True,
    ),
    Variable(
        "SERVER_TIMING",
        "true",
        "bool",
        "answers carry a `Server-Timing` header (time in the database, the LMS, the code); `false` hides "
        "it; deployments send it only when set (the load-test inventories do)",
        production="false",
    ),
    Variable("LOG_LEVEL", "INFO", "str", "both services' console log level"),
    Variable("SECURE_SSL_REDIRECT", "true", "bool", "settings.production: redirect http to https"),
    Variable("SECURE_HSTS_SECONDS", "31536000", "int", "settings.production: HSTS max-age"),
    Variable(
        "SECURE_HSTS_PRELOAD", "true", "bool", "settings.production: ask for the browsers' HSTS preload list"
    ),
    Variable(
        "CSRF_TRUSTED_ORIGINS", "", "list", "settings.production: origins trusted for CSRF", shown="none"
    ),
    # --- Payment (CyberSource Secure Acceptance, or lms_stub's stand-in for it) -----------------
    Variable(
        "CYBERSOURCE_ACCESS_KEY",
        "loadtest-cybersource-access-key",
        "str",
        "the processor profile's access key, sent in every checkout form (not a secret)",
    ),
    Variable(
        "CYBERSOURCE_PROFILE_ID",
        "loadtest-cybersource-profile",
        "str",
        "the processor profile's id (not a secret)",
    ),
    Variable(
        "CYBERSOURCE_PAYMENT_PAGE_URL",
        "{LMS_URL}/processor/cybersource/pay/",
        "str",
        "where a paid checkout sends the learner's browser (`payment_page_url`): lms_stub's stand-in by "
        "default, CyberSource's pay URL in a real shop; a deployment set to the stand-in's needs "
        "ECOMMERCE_PAYMENT_STAND_IN",
        production="https://secureacceptance.cybersource.com/pay",
    ),
    Variable(
        "ECOMMERCE_PAYMENT_STAND_IN",
        None,
        "bool",
        "ecommerce takes notifications signed by lms_stub's processor stand-in (its LMS_PROCESSOR_* "
        "profile, which then signs the checkout forms for a payment page at the stand-in); on under "
        "settings.production: a WARNING (load-test deployments only). A deployed ecommerce whose "
        "CYBERSOURCE_PAYMENT_PAGE_URL is the stand-in's refuses to start without it",
        shown="`true`; `false` under settings.production",
    ),
    Variable(
        "LMS_PROCESSOR_SECRET_KEY",
        "local-only-processor-stand-in-secret-key",
        "str",
        "the processor stand-in's own profile secret: lms_stub checks checkout forms and signs "
        "notifications with it, never with CYBERSOURCE_SECRET_KEY (ecommerce reads it only with "
        "ECOMMERCE_PAYMENT_STAND_IN)",
        shown="a local default",
    ),
    Variable(
        "LMS_PROCESSOR_ACCESS_KEY",
        "loadtest-stand-in-access-key",
        "str",
        "the processor stand-in's profile access key (not a secret)",
    ),
    Variable(
        "LMS_PROCESSOR_PROFILE_ID",
        "loadtest-stand-in-profile",
        "str",
        "the processor stand-in's profile id (not a secret)",
    ),
    Variable(
        "NOTIFICATION_RETENTION_DAYS",
        "30",
        "int",
        "`purge_payment_records` deletes refused and failed payment notifications older than this "
        "(taken ones are kept: they are the payments' record)",
    ),
    Variable(
        "IDEMPOTENCY_RETENTION_DAYS",
        "7",
        "int",
        "`purge_payment_records` deletes Idempotency-Key records older than this (a client's retries "
        "come within minutes)",
    ),
    # --- lms_stub --------------------------------------------------------------------------------
    Variable("LMS_ALLOWED_HOSTS", "127.0.0.1,localhost", "list", "lms_stub's ALLOWED_HOSTS"),
    Variable(
        "LMS_AUTO_AUTH",
        None,
        "bool",
        "lms_stub routes `/auto_auth` (a new learner, logged in, for anyone); on in a deployed stand-in: "
        "a WARNING (load-test deployments only)",
        shown="`true`; `false` when LMS_REQUIRE_SECRETS",
    ),
    Variable(
        "LMS_FAULT_CONTROL",
        None,
        "bool",
        "lms_stub routes `/api/faults/` (fault injection at run time); on in a deployed stand-in: a WARNING "
        "(load-test deployments only)",
        shown="`true`; `false` when LMS_REQUIRE_SECRETS",
    ),
    Variable(
        "LMS_PAYMENT_PROCESSOR",
        None,
        "bool",
        "lms_stub routes `/processor/cybersource/` (a stand-in for the payment processor: a hosted payment "
        "page that notifies ecommerce); on in a deployed stand-in: a WARNING (load-test deployments only)",
        shown="`true`; `false` when LMS_REQUIRE_SECRETS",
    ),
    Variable(
        "LMS_PAYMENT_NOTIFY_URL",
        "{ECOMMERCE_URL}/payment/cybersource/notify/",
        "str",
        "where the processor stand-in posts its signed notifications",
    ),
    Variable("LMS_MAX_BODY_BYTES", "16384", "int", "largest request body lms_stub parses"),
    Variable("CATALOG_COURSES", "100", "int", "courses seeded and known to the LMS", shell=True),
    Variable("JWT_LIFETIME_SECONDS", "60", "int", "lifetime of the learner tokens lms_stub signs"),
    Variable(
        "ECOMMERCE_TIMEOUT",
        "20",
        "float",
        "seconds the LMS waits for ecommerce (above LMS_ENROLLMENT_TIMEOUT)",
    ),
    Variable("LMS_FAULT_LATENCY_MS", "0", "int", "enrollment API fault from the start: added latency"),
    Variable("LMS_FAULT_JITTER_MS", "0", "int", "enrollment API fault from the start: random extra latency"),
    Variable("LMS_FAULT_ERROR_RATE", "0", "float", "enrollment API fault from the start: share answered 500"),
    Variable("LMS_FAULT_OUTAGE_START", "0", "float", "enrollment API outage from (Unix seconds)"),
    Variable("LMS_FAULT_OUTAGE_END", "0", "float", "enrollment API outage until (Unix seconds)"),
    Variable(
        "LMS_FAULT_REFRESH_SECONDS", "0.5", "float", "how often lms_stub workers re-read the fault settings"
    ),
    # --- Monitoring and the load suite ---------------------------------------------------------
    Variable(
        "NEW_RELIC_LICENSE_KEY",
        None,
        "str",
        "set (or NEW_RELIC_CONFIG_FILE): `make up` starts both services under `newrelic-admin run-program`",
        shown="none",
    ),
    Variable("NEW_RELIC_CONFIG_FILE", None, "str", "the New Relic agent's configuration file", shown="none"),
    Variable(
        "NEW_RELIC_APP_NAME", "orderservice", "str", "New Relic name prefix: `<prefix>-<service>`", shell=True
    ),
    Variable(
        "READINGS_HOSTS",
        None,
        "list",
        "the load suite reads CPU and memory from these hosts' readings agents "
        "(common/hostreadings.py), `name=http://address:port` each, comma-separated; unset: this "
        "machine's processes, through the stack's pid files",
        shown="none",
    ),
    Variable("READINGS_TIMEOUT", "2", "float", "seconds the load suite waits for a host's readings agent"),
    Variable(
        "READINGS_HOST_NAME",
        None,
        "str",
        "this host's name in READINGS_HOSTS: each Locust process reports it with its CPU",
        shown="the machine's host name",
    ),
    Variable("LOCUSTFILE", "locustfiles/buy_seat.py", "str", "the locustfile `make run` serves", shell=True),
    Variable(
        "COURSES",
        "{CATALOG_COURSES}",
        "int",
        "Locust: buy among the first N courses only (1 = one hot seat)",
        shown="all (`$CATALOG_COURSES`)",
    ),
    # --- The simulated cluster (make cluster-test, scripts/cluster.sh) -------------------------
    Variable(
        "CLUSTER_SUBNET",
        "10.213.1.0/24",
        "str",
        "`make cluster-test`: the hosts' private /24 on the bridge osbr0 (no route out)",
        shell=True,
    ),
    Variable(
        "CLUSTER_DIR",
        "{VAR_DIR}/cluster",
        "str",
        "`make cluster-test`: each host's /srv, the SSH keys, the wheelhouse, the logs",
        shell=True,
    ),
    Variable(
        "CLUSTER_FORKS",
        "4",
        "int",
        "`make cluster-test`: ansible-playbook --forks (the hosts share this machine's cores)",
        shell=True,
    ),
    Variable(
        "CLUSTER_WHEELHOUSE_PORT",
        "18765",
        "int",
        "`make cluster-test`: port on the bridge's address where the hosts' pip finds the wheels",
        shell=True,
    ),
    # --- A fresh machine (make fresh-test, scripts/fresh-test.sh) -------------------------------
    Variable(
        "FRESH_DIR",
        "{VAR_DIR}/fresh",
        "str",
        "`make fresh-test`: the cached debootstrap base, the run's copy of it and its phase logs",
        shell=True,
    ),
    Variable(
        "FRESH_MIRROR",
        None,
        "str",
        "`make fresh-test`: the Debian mirror debootstrap uses",
        shown="this machine's apt mirror",
    ),
    Variable("FRESH_LMS_PORT", "41000", "int", "`make fresh-test`: its lms_stub port", shell=True),
    Variable("FRESH_ECOMMERCE_PORT", "41130", "int", "`make fresh-test`: its ecommerce port", shell=True),
    Variable("FRESH_LOCUST_PORT", "41089", "int", "`make fresh-test`: its Locust web UI port", shell=True),
    Variable("FRESH_MYSQL_PORT", "41306", "int", "`make fresh-test`: its MariaDB port", shell=True),
    # --- edX's 2015 client (locustfiles/edx2015/, make edx2015): edX's names ----------------------
    Variable(
        "FREE_COURSE_ID", None, "str", "edX 2015 client: course bought through the LMS", shown="course 1"
    ),
    Variable(
        "PAID_SKU",
        None,
        "str",
        "edX 2015 client: seat paid for through ecommerce (edX required it)",
        shown="course 1's paid seat",
    ),
    Variable("ECOMMERCE_SERVICE_URL", "{ECOMMERCE_URL}", "str", "edX 2015 client: ecommerce's root"),
    Variable(
        "ECOMMERCE_API_URL",
        None,
        "str",
        "edX 2015 client: ecommerce's API root",
        shown="`$ECOMMERCE_SERVICE_URL/api/v2/`",
    ),
    Variable(
        "ECOMMERCE_JWT_SECRET_KEY",
        "{JWT_SECRET_KEY}",
        "str",
        "edX 2015 client: signs its learner tokens",
        shown="`$JWT_SECRET_KEY`",
    ),
    Variable("ECOMMERCE_JWT_ISSUER", "{JWT_ISSUER}", "str", "edX 2015 client: its tokens' `iss`"),
    Variable(
        "ECOMMERCE_ORDER_OFFSET",
        None,
        "str",
        "edX 2015 client: added to a basket id for its order number; set, it stays text (as in 2015) and "
        "the payment task fails: leave it unset",
        shown="100000",
    ),
    Variable(
        "BASIC_AUTH_USER", None, "str", "edX 2015 client: HTTP basic user (with the password)", shown="none"
    ),
    Variable("BASIC_AUTH_PASSWORD", None, "str", "edX 2015 client: HTTP basic password", shown="none"),
    Variable(
        "LOCUST_TASK_SET",
        "EcommerceTest",
        "str",
        "edX 2015 client: `EcommerceTest` (free 50 : paid 1), `BasketsTasks` or `CybersourcePaymentTasks`",
    ),
    Variable(
        "EDX2015_WAIT_SCALE",
        "1",
        "float",
        "ours: a factor on the 2015 client's 3-5 s wait (tests shorten it)",
    ),
    Variable(
        "EDX2015_LOCUSTFILE",
        "locustfiles/edx2015/locustfile.py",
        "str",
        "the 2015 client `make edx2015` runs (scripts/edx2015-original.sh points it at edX's own)",
    ),
)

VARIABLES: dict[str, Variable] = {variable.name: variable for variable in TABLE}


def _check_table() -> None:
    seen: set[str] = set()
    for variable in TABLE:
        assert variable.name not in seen, f"{variable.name} is twice in the table"
        assert variable.kind in KINDS, f"{variable.name}: kind {variable.kind!r} is not one of {KINDS}"
        assert not _PLACEHOLDER.search(variable.production or ""), (
            f"{variable.name}: production has a {{NAME}}"
        )
        for ref in variable.references:
            # Earlier entries only: the shell form is evaluated top to bottom.
            assert ref in BUILTINS or ref in seen, f"{variable.name}'s default names {ref}, not above it"
        seen.add(variable.name)


_check_table()


def variable(name: str) -> Variable:
    try:
        return VARIABLES[name]
    except KeyError:
        raise UnknownVariable(name) from None


def default(name: str, env: Mapping[str, str] | None = None, production: bool = False) -> str | None:
    """``name``'s default as text, its placeholders filled in from ``env`` (os.environ); with
    ``production``, its deployments' default if it has one."""
    template = variable(name).default
    if production and variable(name).production is not None:
        template = variable(name).production
    if template is None:
        return None
    return _PLACEHOLDER.sub(lambda m: BUILTINS.get(m.group(1)) or raw(m.group(1), env) or "", template)


def raw(name: str, env: Mapping[str, str] | None = None, production: bool = False) -> str | None:
    """``name``'s text: the environment's if set and not empty, else the default."""
    variable(name)
    value = (os.environ if env is None else env).get(name)
    return value if value else default(name, env, production)


def _parse(name: str, kind: str, text: str):
    if kind == "str":
        return text
    if kind == "list":
        return [item.strip() for item in text.split(",") if item.strip()]
    if kind == "bool":
        word = text.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise BadSetting(name, f"{name} must be true or false, not {word!r}.")
    convert, description = {"int": (int, "a whole number"), "float": (float, "a number")}[kind]
    try:
        return convert(text)
    except ValueError:
        raise BadSetting(name, f"{name} must be {description}, not {text!r}.") from None


def get(name: str, env: Mapping[str, str] | None = None, production: bool = False):
    """``name``'s value as its kind (None when unset without a default). ``env`` is os.environ
    unless given (a run's or a child process's environment); ``production``: settings.production
    reads it, and a variable with a deployments' default takes that one when unset."""
    kind = variable(name).kind
    text = raw(name, env, production)
    if text is not None and kind != "str" and not text.strip():
        text = default(name, env, production)  # blanks are no number, flag or list: as if unset
    if text is None or (kind != "str" and not text.strip()):
        return [] if kind == "list" else None
    return _parse(name, kind, text)


def _typed(kind: str):
    def read(name: str, env: Mapping[str, str] | None = None, production: bool = False):
        if variable(name).kind != kind:
            raise TypeError(f"{name} is a {variable(name).kind} in the table, not a {kind}")
        return get(name, env, production)

    read.__name__ = f"env_{kind}"
    read.__doc__ = f"``name``'s value; the table must say it is a {kind}."
    return read


env_str = _typed("str")
env_int = _typed("int")
env_float = _typed("float")
env_bool = _typed("bool")
env_list = _typed("list")


# --- The shell form -------------------------------------------------------------------------


_PLAIN = re.compile(r"[A-Za-z0-9_./:@%+,=-]+")


def _single_quoted(text: str) -> str:
    if _PLAIN.fullmatch(text) and not text.startswith("~"):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def shell_word(template: str) -> str:
    """A default as a bash word: literal text single-quoted, placeholders as ${NAME}."""
    parts, at = [], 0
    for match in _PLACEHOLDER.finditer(template):
        if match.start() > at:
            parts.append(_single_quoted(template[at : match.start()]))
        parts.append('"${' + match.group(1) + '}"')
        at = match.end()
    if at < len(template) or not parts:
        parts.append(_single_quoted(template[at:]))
    return "".join(parts)


def shell_line(variable_: Variable) -> str:
    """``export NAME=${NAME:-default}``: the environment's value if set and not empty."""
    return f"export {variable_.name}=${{{variable_.name}:-{shell_word(variable_.default)}}}"


def shell(names: list[str] | None = None) -> str:
    """Export lines, in table order, of ``names`` (default: the ones marked shell) and of the
    variables their defaults name. ROOT must be set where they are evaluated."""
    wanted = set(names) if names else {v.name for v in TABLE if v.shell}
    for name in list(wanted):
        variable(name)
    changed = True
    while changed:
        refs = {ref for name in wanted for ref in variable(name).references if ref not in BUILTINS}
        changed = not refs <= wanted
        wanted |= refs
    lines = ["# Generated by common/environment.py (python3 -m common.environment --shell)."]
    lines += [shell_line(v) for v in TABLE if v.name in wanted and v.default is not None]
    return "\n".join(lines) + "\n"


# --- The markdown form ----------------------------------------------------------------------


def _shown(variable_: Variable) -> str:
    if variable_.shown is not None:
        shown = variable_.shown
    else:
        text = variable_.default.replace("{ROOT}/", "")
        shown = "`" + _PLACEHOLDER.sub(lambda m: "$" + m.group(1), text) + "`"
    if variable_.production is not None:
        shown += f" (settings.production: `{variable_.production}`)"
    return shown


def markdown() -> str:
    """The table for README.md ("Configuration"); tests/unit/test_environment.py keeps them equal."""
    lines = ["| variable | default | kind | meaning |", "| --- | --- | --- | --- |"]
    for v in TABLE:
        lines.append(f"| `{v.name}` | {_shown(v)} | {v.kind} | {v.description.replace('|', '∣')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--shell"]:
        try:
            sys.stdout.write(shell(argv[1:]))
        except UnknownVariable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    if argv == ["--markdown"]:
        sys.stdout.write(markdown())
        return 0
    print("usage: python3 -m common.environment --shell [NAME ...] | --markdown", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
