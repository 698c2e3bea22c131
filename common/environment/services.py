"""The two services' addresses and gunicorn configurations (each under its prefix, ECOMMERCE_
or LMS_), and the addresses the services and Locust reach each other at."""

from common.environment.model import Section, Variable


def _service(prefix: str, service: str, port: str) -> list[Variable]:
    """What both gunicorn configurations read, under each service's prefix (ECOMMERCE, LMS)."""
    return [*_gunicorn(prefix, service, port), *_admission(prefix, service), *_upkeep(prefix, service)]


def _gunicorn(prefix: str, service: str, port: str) -> list[Variable]:
    """Where the service listens and the workers that answer there."""
    return [
        Variable(f"{prefix}_PORT", port, "int", f"{service} listens on 127.0.0.1 at this port", shell=True),
        Variable(
            f"{prefix}_BIND", f"127.0.0.1:{{{prefix}_PORT}}", "str", f"{service}'s gunicorn bind address"
        ),
        Variable(
            f"{prefix}_WORKERS",
            None,
            "int",
            f"{service}'s gunicorn workers",
            shown="cores (gevent), 2 × cores + 1 (sync)",
        ),
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
    ]


def _admission(prefix: str, service: str) -> list[Variable]:
    """When a worker refuses new work at once rather than queue it (common/shedding.py)."""
    return [
        Variable(
            f"{prefix}_MAX_IN_FLIGHT",
            "4",
            "int",
            f"`in-flight`: requests doing a {service} worker's work at most; past it new work "
            "(purchases, order reads, logins) is answered `503 overloaded` at once (common/shedding.py); "
            "0: admission control off, whatever the policy",
        ),
        Variable(
            f"{prefix}_ADMISSION",
            "queue-delay",
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
    ]


def _upkeep(prefix: str, service: str) -> list[Variable]:
    """The workers' timeouts and recycling, the service's logs, its database driver and pool."""
    return [
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
            f"{prefix}_MAX_REQUESTS",
            "200000",
            "int",
            f"requests after which a {service} worker is recycled, a backstop against a leak: a "
            "recycle leaves the service a worker short for some 5 s and boots one "
            "(docs/decisions/0081-refusals-below-the-ceiling.md); "
            "0: never",
        ),
        Variable(
            f"{prefix}_MAX_REQUESTS_JITTER",
            "100000",
            "int",
            "up to this many requests more, at random per worker, so that a service's workers, "
            "evenly loaded, are not recycled together",
        ),
        Variable(f"{prefix}_ACCESS_LOG", "false", "bool", f"write var/log/{service}-access.log"),
        Variable(f"{prefix}_ERROR_LOG", f"{{VAR_DIR}}/log/{service}.log", "str", f"{service}'s gunicorn log"),
        Variable(f"{prefix}_MYSQL_DRIVER", "{MYSQL_DRIVER}", "str", f"MYSQL_DRIVER for {service} only"),
        Variable(f"{prefix}_DB_POOL", "{DB_POOL}", "str", f"DB_POOL for {service} only"),
    ]


SECTION = Section(
    "Services and addresses",
    (
        *_service("LMS", "lms_stub", "18000"),
        *_service("ECOMMERCE", "ecommerce", "18130"),
        Variable("LOCUST_PORT", "8089", "int", "Locust web UI port (127.0.0.1)", shell=True),
        Variable(
            "WEB_LOGIN",
            "false",
            "bool",
            "the Locust web UI asks for a login (user `operator`, the password in WEB_LOGIN_PASSWORD_FILE); "
            "without it, it listens on 127.0.0.1 only",
            shell=True,
        ),
        Variable(
            "WEB_LOGIN_PASSWORD_FILE",
            "{VAR_DIR}/locust-web-password",
            "str",
            "the web UI login's password, the owner's alone (0600); made once if missing",
            shell=True,
        ),
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
            "ECOMMERCE_CPUS",
            None,
            "str",
            "taskset CPU list ecommerce is pinned to (`0-3`)",
            shown="not pinned",
        ),
    ),
)
