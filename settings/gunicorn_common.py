"""What both services' gunicorn configurations share. Each service's gunicorn.conf.py calls
``service_config`` with its name and its variables' prefix; every value can be set from the
environment, and the defaults are those of common/environment (docs/configuration.md)."""

import gc
import json
import multiprocessing
from pathlib import Path

from common import worker_counts
from common.environment import BadSetting, get

ROOT = Path(__file__).resolve().parent.parent


def post_worker_init(worker) -> None:
    """Runs in each worker after gevent's monkey-patching and the app's loading: the place to
    open the worker's pool connections and to connect the New Relic agent, if it runs."""
    from django.conf import settings

    from common.dbpool import warm_up
    from common.timing import register_new_relic

    register_new_relic(worker.log)

    if worker.cfg.worker_class_str == "gevent" and settings.MYSQL_DRIVER == "mysqlclient":
        worker.log.warning(
            "mysqlclient under gevent: a query that waits on a lock freezes every request of "
            "this worker (see docs/decisions/0008-gevent-workers-with-pymysql.md); use MYSQL_DRIVER=pymysql"
        )
    counts = worker_counts.folder(get("VAR_DIR"), worker.cfg.proc_name)
    worker.request_counter = worker_counts.Counter(counts, worker.pid)
    opened = warm_up()
    worker.log.info("worker %s ready: %s pooled database connections open", worker.pid, opened)
    _check_connection_budget(worker)
    # What is loaded by now (Django, Oscar, the app: some 140,000 objects) lives as long as the
    # worker; frozen, the collector no longer walks it on every full collection (GC's share of
    # an order's CPU went from 2.6 % to 1.7 % in-process,
    # docs/decisions/0055-the-calls-between-the-services.md).
    gc.freeze()


def count_request(worker, req) -> None:
    """gunicorn's pre_request hook: one more request for this worker (common/worker_counts.py,
    read by the load suite's per-worker table). gunicorn's default hook logs the request at
    debug level, which the services never log."""
    counter = getattr(worker, "request_counter", None)
    if counter is not None:
        counter.add()


def remove_request_counter(server, worker) -> None:
    """gunicorn's worker_exit hook, in the worker: its count goes with it."""
    counter = getattr(worker, "request_counter", None)
    if counter is not None:
        counter.remove()


def clear_request_counters(server) -> None:
    """gunicorn's on_starting hook, in the master: no count of an earlier run's workers is left."""
    worker_counts.clear(worker_counts.folder(get("VAR_DIR"), server.cfg.proc_name))


def _check_connection_budget(worker) -> None:
    """Warn when this service's workers could open more than half of MariaDB's
    max_connections (the other half is for the other service and the tools)."""
    from django.db import connection

    per_worker = connection.settings_dict.get("POOL", {}).get("MAX_CONNECTIONS")
    if not getattr(connection, "is_pooled", False) or not per_worker:
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT @@max_connections")
        limit = cursor.fetchone()[0]
    connection.close()
    if worker.cfg.workers * per_worker > limit // 2:
        worker.log.warning(
            "%s workers x %s pooled connections exceed half of MariaDB's max_connections (%s)",
            worker.cfg.workers,
            per_worker,
            limit,
        )


# Codes for the requests gunicorn refuses itself, before the application sees them.
PROTOCOL_ERROR_CODES = {
    400: "bad_request",
    403: "forbidden",
    414: "uri_too_long",
    417: "expectation_failed",
    431: "headers_too_large",
    500: "server_error",
    501: "not_implemented",
}


def write_json_error(sock, status_int, reason, mesg) -> None:
    """gunicorn's error page, in the services' JSON error shape."""
    from gunicorn import util

    body = json.dumps(
        {"error": PROTOCOL_ERROR_CODES.get(status_int, "bad_request"), "message": f"{reason}: {mesg}"}
    ).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


def answer_protocol_errors_in_json() -> None:
    """gunicorn answers a request it will not parse (a request line over 4094 bytes: 414, a
    header over 8190: 431, a malformed header: 400) itself, with an HTML page. gunicorn has no
    setting for that page, so its one writer is replaced: every error either service answers,
    from the HTTP layer up, is in the one JSON shape. Runs in the master, before the fork."""
    from gunicorn import util

    util.write_error = write_json_error


HTTP_PARSERS = ("fast", "python")


def http_parser(prefix: str) -> str:
    """The parser ``<PREFIX>_HTTP_PARSER`` names, checked here, in the master, before any worker
    starts: gunicorn itself would find a missing C parser only when the first request arrives,
    and then fail every request."""
    name = f"{prefix}_HTTP_PARSER"
    parser = get(name)
    if parser not in HTTP_PARSERS:
        raise BadSetting(name, f"{name} must be one of {', '.join(HTTP_PARSERS)}, not {parser!r}")
    if parser == "fast":
        try:
            import gunicorn_h1c
        except ImportError:
            raise BadSetting(
                name, f"{name}=fast needs the gunicorn_h1c package (requirements.txt), or set {name}=python"
            ) from None
        if not hasattr(gunicorn_h1c, "LimitRequestLine"):  # gunicorn enforces its limits from 0.4.1 on
            raise BadSetting(name, f"{name}=fast needs gunicorn_h1c 0.4.1 or later")
    return parser


def default_workers(worker_class: str, cores: int) -> int:
    """Workers for ``cores`` when ``<PREFIX>_WORKERS`` is not set: one per core for gevent
    workers, 2 x cores + 1 for sync ones.

    A sync worker blocks on every database round trip, so it takes more workers than cores to
    keep the cores busy (gunicorn's own rule). A gevent worker never blocks: one per core can
    use the machine, and more only compete for the same cores. Measured on the 2-core VM at 3900
    RPM (docs/decisions/0080-one-gevent-worker-per-core-the.md, issue 29): 2 + 2 gevent workers
    used 8-17 % less CPU per purchase than 5 + 5, their loops ran late less often (no purchase
    refused, where 5 + 5 refused in their first seconds), and they shared the load evenly without help."""
    return cores if worker_class == "gevent" else 2 * cores + 1


def service_config(service: str, prefix: str) -> dict:
    """gunicorn settings for ``service``; ``prefix`` names its variables (ECOMMERCE, LMS).
    A bad value stops gunicorn with common.environment.BadSetting, which names the variable."""
    answer_protocol_errors_in_json()
    var = Path(get("VAR_DIR"))
    (var / "run").mkdir(parents=True, exist_ok=True)
    (var / "log").mkdir(parents=True, exist_ok=True)
    access_log = get(f"{prefix}_ACCESS_LOG")
    worker_class = get(f"{prefix}_WORKER_CLASS")
    return {
        "bind": get(f"{prefix}_BIND"),
        # The one default the table cannot write down: it depends on the machine.
        "workers": get(f"{prefix}_WORKERS") or default_workers(worker_class, multiprocessing.cpu_count()),
        "worker_class": worker_class,
        "worker_connections": get(f"{prefix}_WORKER_CONNECTIONS"),
        # gunicorn_h1c's C parser, a requirement (docs/decisions/0054-gunicorns-c-parser.md: a few
        # per cent of the services' CPU per purchase); `python` is gunicorn's own.
        "http_parser": http_parser(prefix),
        "timeout": get(f"{prefix}_WORKER_TIMEOUT"),
        "graceful_timeout": get(f"{prefix}_GRACEFUL_TIMEOUT"),
        "keepalive": 5,
        # A backstop against slow leaks, staggered so the workers never restart together.
        "max_requests": get(f"{prefix}_MAX_REQUESTS"),
        "max_requests_jitter": get(f"{prefix}_MAX_REQUESTS_JITTER"),
        "proc_name": service,
        "pidfile": str(var / "run" / f"{service}.pid"),
        "errorlog": get(f"{prefix}_ERROR_LOG"),
        # Access logs cost CPU per request; off unless asked for.
        "accesslog": str(var / "log" / f"{service}-access.log") if access_log else None,
        # Two gunicorns under one HOME would otherwise share $HOME/.gunicorn/gunicorn.ctl.
        "control_socket": str(var / "run" / f"{service}.ctl"),
        "wsgi_app": f"{service}.wsgi:application",
        "chdir": str(ROOT),
        "post_worker_init": post_worker_init,
        "on_starting": clear_request_counters,
        "pre_request": count_request,
        "worker_exit": remove_request_counter,
    }
