"""The gunicorn settings of a bare handler (floor/gunicorn.conf.py reads them in its master):
the service's own, as its gunicorn.conf.py computes them (the file is run, not copied), with
only what makes it a bare handler changed. Light on purpose: the master imports this before
gevent patches the worker, as a service's master imports settings/gunicorn_common.py."""

import runpy
from pathlib import Path

from common import worker_counts
from common.environment import get

# What the server process learns from the one that starts it (server.BareServer).
SERVICE_VARIABLE, CONFIG_VARIABLE, BIND_VARIABLE = "FLOOR_SERVICE", "FLOOR_CONFIG", "FLOOR_BIND"


def count_requests(worker) -> None:
    """post_worker_init of a bare worker: the request counter the services' hook starts
    (settings/gunicorn_common.py), without the database pool, Django and the agent."""
    worker.request_counter = worker_counts.Counter(
        worker_counts.folder(get("VAR_DIR"), worker.cfg.proc_name), worker.pid
    )


def service_settings(config: str) -> dict:
    """The gunicorn settings a service's gunicorn.conf.py leaves in its namespace."""
    found = runpy.run_path(config)
    return {name: value for name, value in found.items() if not name.startswith("__")}


def bare_config(env) -> dict:
    """The service's settings, made a bare handler's: its bind, one worker, the canned
    answers' application, its own name and log (VAR_DIR is the bare server's own folder)."""
    settings = service_settings(env[CONFIG_VARIABLE])
    settings.update(
        bind=env[BIND_VARIABLE],
        workers=1,
        wsgi_app="floor.canned:application",
        proc_name=f"floor-{env[SERVICE_VARIABLE]}",
        post_worker_init=count_requests,
        errorlog=str(Path(get("VAR_DIR")) / "log" / "bare.log"),
    )
    return settings
