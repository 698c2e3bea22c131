"""A reused HTTP session per process and thread, for calls between the services.

Both services call out through it (no Django app). Keyed on the pid so that a session
created before gunicorn forks is never shared between workers.
"""

import os
import threading

import requests

_local = threading.local()


def reused_session(pool_maxsize: int = 64) -> requests.Session:
    session = getattr(_local, "session", None)
    if session is None or _local.pid != os.getpid():
        session = requests.Session()
        adapter = requests.adapters.HTTPAdapter(pool_connections=4, pool_maxsize=pool_maxsize, max_retries=0)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        _local.session, _local.pid = session, os.getpid()
    return session
