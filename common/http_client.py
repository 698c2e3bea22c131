"""Calls between the services: one pool of kept-alive connections per worker process.

Both services call out through it (lms_stub to ecommerce's order API and notification endpoint,
ecommerce to the LMS enrollment API). It is a thin layer over urllib3, not requests:

* **One pool per process, not per thread.** Under gunicorn's gevent workers ``threading.local``
  is per greenlet, so the requests.Session kept there before was one per request: every call
  opened a new TCP connection (and the other service accepted it and spawned a greenlet for
  it) and built a new Session. The pool here is keyed on the pid only (a pool made before
  gunicorn forks is never shared by workers); urllib3's pool is safe to share between greenlets.
* **No requests.** requests costs about 0.8-1.0 ms of CPU per call here (environment proxy
  lookups, cookie merging, hooks); urllib3 about 0.4 ms (docs/decisions.md has the figures).
  Nothing between the services needs cookies, proxies or redirects.

Over https (ecommerce behind a load balancer that ends TLS) the certificate is checked against
the system's certificate authorities, or those of the PEM file ``HTTP_CA_BUNDLE`` names (a
private CA); kept-alive https connections are ended after ``IDLE_SECONDS`` the same way.

``Timeout`` and ``RequestError`` are what a caller catches; a ``Reply`` carries
``status_code``, ``headers`` (case-insensitive), ``content``, ``text`` and ``json()``.

A kept-alive connection the other side closes while a request is being sent on it fails that
request. Both services' gunicorns close a connection idle for 5 s (settings/gunicorn_common.py,
keepalive), so a connection idle here for ``IDLE_SECONDS`` (2 s) is closed before it is reused
and that race cannot happen; a worker being recycled can still close one. A connection error
before anything was sent is always tried once more on a new connection; a request that may have
been received is repeated only when the caller says it is safe (``idempotent=True``: the
enrollment API and the payment notification are idempotent by contract, a GET is by definition).
A timeout is never repeated: ``timeout`` bounds the whole call.
"""

import json as jsonlib
import os
import time
from urllib.parse import urlencode

import urllib3
from urllib3.exceptions import HTTPError, NewConnectionError
from urllib3.exceptions import TimeoutError as Urllib3Timeout

from common import environment

# Connections kept per host and process: a gevent worker may have this many calls out at once
# before further ones open connections that are not kept.
POOL_MAXSIZE = 64

# Below the servers' keep-alive timeout (5 s): the client, not the server, ends an idle connection.
IDLE_SECONDS = 2.0

_pool: tuple[int, urllib3.PoolManager] | None = None


class RequestError(Exception):
    """The call failed: no connection, a broken connection or an unreadable answer."""


class Timeout(RequestError):
    """No connection or no answer within the timeout."""


class Reply:
    __slots__ = ("status_code", "headers", "content")

    def __init__(self, status_code: int, headers, content: bytes):
        self.status_code, self.headers, self.content = status_code, headers, content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self):
        """The body as JSON; ValueError when it is not."""
        return jsonlib.loads(self.content)


class _EndsIdleConnections:
    """Mixed into urllib3's pool of one host's connections: ends those idle for IDLE_SECONDS."""

    def _put_conn(self, conn) -> None:
        if conn is not None:
            conn.idle_since = time.monotonic()
        super()._put_conn(conn)

    def _get_conn(self, timeout=None):
        conn = super()._get_conn(timeout)
        idle_since = getattr(conn, "idle_since", None)
        if idle_since is not None and time.monotonic() - idle_since > IDLE_SECONDS:
            conn.close()  # the request connects anew
        return conn


class _HostPool(_EndsIdleConnections, urllib3.HTTPConnectionPool):
    pass


class _HttpsHostPool(_EndsIdleConnections, urllib3.HTTPSConnectionPool):
    pass


def pool() -> urllib3.PoolManager:
    global _pool
    pid = os.getpid()
    if _pool is None or _pool[0] != pid:
        # None: urllib3 checks certificates against the system's authorities.
        manager = urllib3.PoolManager(
            num_pools=8, maxsize=POOL_MAXSIZE, block=False, ca_certs=environment.get("HTTP_CA_BUNDLE")
        )
        manager.pool_classes_by_scheme = {"http": _HostPool, "https": _HttpsHostPool}
        _pool = (pid, manager)
    return _pool[1]


class _Retry(urllib3.Retry):
    """urllib3's Retry, except that a timeout is never repeated (a refused connection still is).

    A timeout says the other side is slow, not gone: sent again, the call takes the caller's
    timeout twice (an order's enrollment took 2 x LMS_ENROLLMENT_TIMEOUT = 14 s at 1.5 x
    capacity) and adds to the load of a service that is already behind.
    """

    def increment(self, method=None, url=None, response=None, error=None, _pool=None, _stacktrace=None):
        if isinstance(error, Urllib3Timeout) and not isinstance(error, NewConnectionError):
            raise error.with_traceback(_stacktrace)
        return super().increment(method, url, response, error, _pool, _stacktrace)


def _retries(idempotent: bool) -> urllib3.Retry:
    return _Retry(
        total=1,
        connect=1,
        read=1 if idempotent else 0,
        redirect=0,  # a redirect would turn a POST into a GET: answered as it is
        status=0,
        other=0,
        # None: any method may be repeated on a read error (with read=0 none is, whatever this).
        allowed_methods=None if idempotent else urllib3.Retry.DEFAULT_ALLOWED_METHODS,
        raise_on_redirect=False,
        raise_on_status=False,
    )


def request(
    method: str,
    url: str,
    *,
    timeout: float,
    json=None,
    form: dict | None = None,
    headers: dict | None = None,
    idempotent: bool | None = None,
) -> Reply:
    """``method`` ``url`` with a JSON body (``json``) or a form (``form``); ``timeout`` seconds
    to connect and again to read, once (a timeout is not retried). ``idempotent`` defaults to
    True for GET only."""
    sent = dict(headers or {})
    body = None
    if json is not None:
        body = jsonlib.dumps(json).encode()
        sent.setdefault("Content-Type", "application/json")
    elif form is not None:
        body = urlencode(form).encode()
        sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
    if idempotent is None:
        idempotent = method == "GET"
    try:
        response = pool().request(
            method,
            url,
            body=body,
            headers=sent,
            timeout=urllib3.Timeout(connect=timeout, read=timeout),
            retries=_retries(idempotent),
            redirect=False,
            preload_content=True,
        )
    except HTTPError as exc:
        cause = getattr(exc, "reason", None) or exc  # MaxRetryError wraps the last error
        # urllib3 derives a refused connection from its connect timeout: it is not a timeout.
        if isinstance(cause, Urllib3Timeout) and not isinstance(cause, NewConnectionError):
            raise Timeout(str(cause)) from exc
        raise RequestError(f"{cause.__class__.__name__}: {cause}") from exc
    except OSError as exc:
        raise RequestError(f"{exc.__class__.__name__}: {exc}") from exc
    return Reply(response.status, response.headers, response.data)


def post(url: str, **kwargs) -> Reply:
    return request("POST", url, **kwargs)


def get(url: str, **kwargs) -> Reply:
    return request("GET", url, **kwargs)
