"""Calls between the services: one pool of kept-alive connections per worker process.

Both services call out through it (lms_stub to ecommerce's order API and notification endpoint,
ecommerce to the LMS enrollment API). It is a thin layer over geventhttpclient, not requests or
urllib3:

* **One pool per worker, not per greenlet.** Under gunicorn's gevent workers ``threading.local``
  is per greenlet, so the requests.Session kept there before was one per request: every call
  opened a new TCP connection (and the other service accepted it and spawned a greenlet for
  it) and built a new Session. The pools here are kept per native thread and process (a pool
  made before gunicorn forks is never shared by workers): every greenlet of a worker shares
  them, and a gevent socket is only ever used by the thread whose hub it belongs to.
* **No requests, no urllib3.** requests costs about 0.8-1.0 ms of CPU per call here (environment
  proxy lookups, cookie merging, hooks), urllib3 about 0.4 ms (http.client parses the answer's
  headers with the email package), geventhttpclient, written for gevent with a C parser, about
  0.15 ms (docs/decisions/0055-the-calls-between-the-services.md has the figures). Nothing
  between the services needs cookies, proxies or redirects.

Over https (ecommerce behind a load balancer that ends TLS) the certificate and host name are
checked against the system's certificate authorities, or those of the PEM file
``HTTP_CA_BUNDLE`` names (a private CA); kept-alive https connections are ended after
``IDLE_SECONDS`` the same way, and a new one resumes the TLS session of the last one handed back
(the balancer's session tickets): a full handshake costs both ends a key exchange, a signature
and a certificate chain to check, a resumed one none of the last two.

``Timeout`` and ``RequestError`` are what a caller catches; a ``Reply`` carries
``status_code``, ``headers`` (case-insensitive), ``content``, ``text`` and ``json()``.

A kept-alive connection the other side closes while a request is being sent on it fails that
request. Both services' gunicorns close a connection idle for 5 s (settings/gunicorn_common.py,
keepalive), so a connection idle here for ``IDLE_SECONDS`` (2 s) is closed before it is reused
and that race cannot happen; a worker being recycled can still close one. A connection error
before anything was sent is always tried once more on a new connection; a request that may have
been received is repeated only when the caller says it is safe (``idempotent=True``: the
enrollment API and the payment notification are idempotent by contract, a GET is by definition).
A timeout is never repeated: ``timeout`` bounds the connection and each wait for the answer.
"""

import collections
import functools
import json as jsonlib
import os
import socket
import time
from urllib.parse import urlencode, urlsplit

import gevent.select
import gevent.socket
import gevent.ssl
from gevent.monkey import get_original
from geventhttpclient.response import HTTPConnectionClosed, HTTPParseError, HTTPSocketPoolResponse

from common import environment

# Connections kept per host and worker; a worker with more calls out at once opens more, and
# closes those that do not fit when they come back.
POOL_MAXSIZE = 64

# Below the servers' keep-alive timeout (5 s): the client, not the server, ends an idle connection.
IDLE_SECONDS = 2.0

# A native thread's storage, even where gevent has made threading.local a greenlet's: every
# greenlet of a worker shares its connections, and a test's threads each have their own.
_native = get_original("threading", "local")()

_HTTPS_PORT, _HTTP_PORT = 443, 80


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


class _Connections:
    """The kept-alive connections of one thread to one origin, most recently used first.

    geventhttpclient's answer parser hands a connection back here (``return_socket``) once the
    whole answer was read and the server keeps it open, and closes it otherwise
    (``release_socket``)."""

    def __init__(self, scheme: str, host: str, port: int):
        self.address = (host, port)
        default_port = _HTTPS_PORT if scheme == "https" else _HTTP_PORT
        self.host_header = host if port == default_port else f"{host}:{port}"
        self.tls = _tls_context() if scheme == "https" else None
        # The TLS session of the last connection handed back whole: a new connection resumes
        # it (an abbreviated handshake, no certificate to send or check) where the server agrees.
        self.session = None
        self.kept: collections.deque = collections.deque()

    def connect(self, timeout: float):
        sock = gevent.socket.create_connection(self.address, timeout=timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.tls is not None:
                sock = self.tls.wrap_socket(sock, server_hostname=self.address[0], session=self.session)
        except BaseException:
            sock.close()
            raise
        return sock

    def kept_socket(self):
        """A kept connection idle for at most IDLE_SECONDS that the server has not closed (it
        would be readable), or None; older ones are closed."""
        now = time.monotonic()
        while self.kept:
            sock, idle_since = self.kept.pop()
            if now - idle_since <= IDLE_SECONDS and _still_open(sock):
                return sock
            sock.close()
        return None

    def return_socket(self, sock) -> None:
        if self.tls is not None and sock.session is not None:
            # Read after an answer: TLS 1.3 servers send their session tickets after the handshake.
            self.session = sock.session
        if len(self.kept) < POOL_MAXSIZE:
            self.kept.append((sock, time.monotonic()))
        else:
            sock.close()

    def release_socket(self, sock) -> None:
        sock.close()

    def close(self) -> None:
        while self.kept:
            self.kept.pop()[0].close()


def _still_open(sock) -> bool:
    """An idle kept-alive connection has nothing to read; a closed one reads as end of file."""
    try:
        return sock.fileno() >= 0 and not gevent.select.select([sock], [], [], 0.0)[0]
    except (OSError, ValueError):
        return False


def _tls_context():
    """The system's certificate authorities, or only those of the PEM file HTTP_CA_BUNDLE names;
    the certificate must name the host."""
    return gevent.ssl.create_default_context(cafile=environment.get("HTTP_CA_BUNDLE"))


def _connections(scheme: str, host: str, port: int) -> _Connections:
    pid = os.getpid()
    if getattr(_native, "pid", None) != pid:  # a pool made before gunicorn forked is not shared
        _native.pid, _native.origins = pid, {}
    key = (scheme, host, port)
    found = _native.origins.get(key)
    if found is None:
        found = _native.origins[key] = _Connections(scheme, host, port)
    return found


def close_all() -> None:
    """Close this thread's kept connections and forget its pools (tests change HTTP_CA_BUNDLE)."""
    for connections in getattr(_native, "origins", {}).values():
        connections.close()
    _native.origins = {}


@functools.lru_cache(maxsize=512)
def _target(url: str) -> tuple[str, str, int, str]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RequestError(f"not an http(s) URL: {url!r}")
    port = parts.port or (_HTTPS_PORT if parts.scheme == "https" else _HTTP_PORT)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port, path


def _head(method: str, path: str, host: str, headers: dict, body: bytes | None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Accept-Encoding: identity"]
    lines.extend(f"{name}: {value}" for name, value in headers.items())
    if body is not None or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body or b'')}")
    lines.append("\r\n")
    return "\r\n".join(lines).encode("latin-1")


def request(
    method: str,
    url: str,
    *,
    timeout: float,
    json=None,
    form: dict | None = None,
    headers: dict | None = None,
    idempotent: bool | None = None,
    fresh: bool = False,
) -> Reply:
    """``method`` ``url`` with a JSON body (``json``) or a form (``form``); ``timeout`` seconds
    to connect and again for each wait on the answer (a timeout is not retried). ``idempotent``
    defaults to True for GET only. ``fresh``: on a new connection, not a kept one (the server's
    workers accept it in a race: the one free to take it first)."""
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
    scheme, host, port, path = _target(url)
    connections = _connections(scheme, host, port)
    data = _head(method, path, connections.host_header, sent, body) + (body or b"")
    tried_again = False
    while True:
        sock = None if fresh else connections.kept_socket()
        if sock is None:
            try:
                sock = connections.connect(timeout)
            except TimeoutError as exc:
                raise Timeout(f"no connection to {host}:{port} within {timeout} s") from exc
            except OSError as exc:
                if tried_again:  # nothing was sent: one more connection is always safe
                    raise RequestError(f"{exc.__class__.__name__}: {exc}") from exc
                tried_again = True
                continue
        sock.settimeout(timeout)
        try:
            sock.sendall(data)
            # _Connections is no ConnectionPool: it has the two methods the parser calls on one
            # (return_socket, release_socket), which is all the response needs.
            response = HTTPSocketPoolResponse(sock, connections, method=method)  # type: ignore[arg-type]
            content = response.read()
        except TimeoutError as exc:
            sock.close()
            raise Timeout(f"no answer from {host}:{port} within {timeout} s") from exc
        except (OSError, HTTPConnectionClosed, HTTPParseError) as exc:
            sock.close()  # the answer's parser has let go of it, or never had it
            if idempotent and not tried_again:  # it may have been received: only if safe
                tried_again = True
                continue
            raise RequestError(f"{exc.__class__.__name__}: {exc}") from exc
        return Reply(response.status_code, response.info(), bytes(content))


def post(url: str, **kwargs) -> Reply:
    return request("POST", url, **kwargs)


def get(url: str, **kwargs) -> Reply:
    return request("GET", url, **kwargs)
