"""What both services' gunicorn configurations share. Each service's gunicorn.conf.py calls
``service_config`` with its name and default port; every value can be set from the
environment (see README.md, "Configuration")."""

import json
import multiprocessing
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    return int(raw) if raw.strip() else default


def post_worker_init(worker) -> None:
    """Runs in each worker after gevent's monkey-patching and the app's loading: the place to
    open the worker's pool connections and to connect the New Relic agent, if it runs."""
    from django.conf import settings

    from ecommerce.core.timing import register_new_relic
    from ecommerce.dbpool import warm_up

    register_new_relic(worker.log)

    if worker.cfg.worker_class_str == "gevent" and settings.MYSQL_DRIVER == "mysqlclient":
        worker.log.warning(
            "mysqlclient under gevent: a query that waits on a lock freezes every request of "
            "this worker (see docs/decisions.md); use MYSQL_DRIVER=pymysql"
        )
    opened = warm_up()
    worker.log.info("worker %s ready: %s pooled database connections open", worker.pid, opened)
    _check_connection_budget(worker)


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


def service_config(service: str, prefix: str, default_port: int, default_worker_class: str) -> dict:
    """gunicorn settings for ``service``; ``prefix`` names its variables (ECOMMERCE, LMS)."""
    answer_protocol_errors_in_json()
    var = Path(os.environ.get("VAR_DIR", ROOT / "var"))
    (var / "run").mkdir(parents=True, exist_ok=True)
    (var / "log").mkdir(parents=True, exist_ok=True)
    port = _int(f"{prefix}_PORT", default_port)
    access_log = os.environ.get(f"{prefix}_ACCESS_LOG", "").lower() in ("1", "true", "yes", "on")
    return {
        "bind": os.environ.get(f"{prefix}_BIND", f"127.0.0.1:{port}"),
        "workers": _int(f"{prefix}_WORKERS", 2 * multiprocessing.cpu_count() + 1),
        "worker_class": os.environ.get(f"{prefix}_WORKER_CLASS", default_worker_class),
        "worker_connections": _int(f"{prefix}_WORKER_CONNECTIONS", 100),
        "timeout": _int(f"{prefix}_WORKER_TIMEOUT", 30),
        "graceful_timeout": _int(f"{prefix}_GRACEFUL_TIMEOUT", 30),
        "keepalive": 5,
        # A backstop against slow leaks, staggered so the workers never restart together.
        "max_requests": _int(f"{prefix}_MAX_REQUESTS", 20000),
        "max_requests_jitter": _int(f"{prefix}_MAX_REQUESTS_JITTER", 2000),
        "proc_name": service,
        "pidfile": str(var / "run" / f"{service}.pid"),
        "errorlog": os.environ.get(f"{prefix}_ERROR_LOG", str(var / "log" / f"{service}.log")),
        # Access logs cost CPU per request; off unless asked for.
        "accesslog": str(var / "log" / f"{service}-access.log") if access_log else None,
        # Two gunicorns under one HOME would otherwise share $HOME/.gunicorn/gunicorn.ctl.
        "control_socket": str(var / "run" / f"{service}.ctl"),
        "wsgi_app": f"{service}.wsgi:application",
        "chdir": str(ROOT),
        "post_worker_init": post_worker_init,
    }
