"""Where a request's time went: database, outbound calls, the rest.

Both services install ``ServerTimingMiddleware`` first. For each request it counts the
statements and commits on the default database and their time, and the time spent waiting on
other services (``outbound("lms")`` around ecommerce's enrollment call, ``outbound("ecommerce")``
around the LMS stand-in's order call), then answers with a ``Server-Timing`` header:

    Server-Timing: db;dur=9.1;desc="14 queries, 2 commits", lms;dur=6.3, app;dur=18.2, total;dur=33.6

``app`` is what is left of ``total``: Python, Django, serialisation, waiting for a pooled
connection. A service that calls another forwards the other's entries with its name as a
prefix (``ecommerce-db``, ``ecommerce-lms``, ...), so the load suite sees the whole chain in
the one answer it gets. When the process runs under the New Relic agent, the same figures are
added to the request's transaction as custom attributes.

Plain Django (no app), installed by both services.
"""

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.db import connection

from common.contract.server_timing import parse
from common.shedding import waiting_on_another_service


@dataclass
class RequestTiming:
    started: float = field(default_factory=time.perf_counter)
    db_ms: float = 0.0
    queries: int = 0
    commits: int = 0
    outbound_ms: dict[str, float] = field(default_factory=dict)
    forwarded: dict[str, float] = field(default_factory=dict)
    annotations: dict[str, object] = field(default_factory=dict)

    def time_query(self, execute, sql, params, many, context):
        """A database execute_wrapper."""
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.db_ms += (time.perf_counter() - started) * 1000
            self.queries += 1

    def entries(self, total_ms: float) -> dict[str, float]:
        """Milliseconds by Server-Timing name, ``app`` being what the others leave of ``total``."""
        waited = sum(self.outbound_ms.values())
        return {
            "db": self.db_ms,
            **self.outbound_ms,
            "app": max(total_ms - self.db_ms - waited, 0.0),
            "total": total_ms,
            **self.forwarded,
        }

    def attributes(self, total_ms: float) -> dict[str, object]:
        """The custom attributes of the request's New Relic transaction."""
        return {
            "queries": self.queries,
            "commits": self.commits,
            "db_ms": round(self.db_ms, 1),
            **{f"{name}_ms": round(ms, 1) for name, ms in self.outbound_ms.items()},
            "app_ms": round(self.entries(total_ms)["app"], 1),
            **self.annotations,
        }


_current: ContextVar[RequestTiming | None] = ContextVar("request_timing", default=None)


def current() -> RequestTiming | None:
    return _current.get()


@contextmanager
def outbound(service: str) -> Iterator[None]:
    """Count the time inside as waiting on ``service`` (and, meanwhile, not as this worker's
    work in flight: common.shedding)."""
    started = time.perf_counter()
    try:
        with waiting_on_another_service():
            yield
    finally:
        timing = _current.get()
        if timing is not None:
            elapsed = (time.perf_counter() - started) * 1000
            timing.outbound_ms[service] = timing.outbound_ms.get(service, 0.0) + elapsed


def forward(service: str, header: str | None) -> None:
    """Pass on the Server-Timing entries of ``service``'s answer, prefixed with its name."""
    timing = _current.get()
    if timing is not None and header:
        for name, ms in parse(header).items():
            timing.forwarded[f"{service}-{name}"] = ms


def annotate(**values: object) -> None:
    """Facts about the request for its monitoring transaction (an order's number, its status)."""
    timing = _current.get()
    if timing is not None:
        timing.annotations.update(values)


def note_commit(elapsed_ms: float) -> None:
    """Called by the project's database backends for each COMMIT."""
    timing = _current.get()
    if timing is not None:
        timing.commits += 1
        timing.db_ms += elapsed_ms


def header(timing: RequestTiming, total_ms: float) -> str:
    parts = []
    for name, ms in timing.entries(total_ms).items():
        part = f"{name};dur={ms:.1f}"
        if name == "db":
            part += f';desc="{timing.queries} queries, {timing.commits} commits"'
        parts.append(part)
    return ", ".join(parts)


def new_relic_agent():
    """The New Relic agent's API when this process was started under
    ``newrelic-admin run-program`` (which initialises the agent), else None."""
    if not os.environ.get("NEW_RELIC_ADMIN_COMMAND"):
        return None
    import newrelic.agent

    return newrelic.agent


class ServerTimingMiddleware:
    """Times each request (see the module's docstring). Off when SERVER_TIMING is false and no
    New Relic agent runs."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.send_header = settings.SERVER_TIMING
        self.agent = new_relic_agent()
        if not self.send_header and self.agent is None:
            raise MiddlewareNotUsed

    def __call__(self, request):
        timing = RequestTiming()
        token = _current.set(timing)
        try:
            with connection.execute_wrapper(timing.time_query):
                response = self.get_response(request)
        finally:
            _current.reset(token)
        total_ms = (time.perf_counter() - timing.started) * 1000
        if self.send_header:
            response["Server-Timing"] = header(timing, total_ms)
        if self.agent is not None and self.agent.current_transaction() is not None:
            self.agent.add_custom_attributes(timing.attributes(total_ms).items())
        return response


def register_new_relic(log) -> None:
    """Connect this worker's agent before its first request (gunicorn's post_worker_init), so
    the first requests are not lost while it connects; a no-op without the agent."""
    agent = new_relic_agent()
    if agent is None:
        return
    application = agent.register_application(timeout=10.0)
    log.info("New Relic agent registered (application %r, pid %s)", application.name, os.getpid())


class TimedCommits:
    """For a database backend's DatabaseWrapper: each COMMIT counts, with its time, in the
    request's timing (Django's execute wrappers never see commits)."""

    def _commit(self):
        started = time.perf_counter()
        try:
            return super()._commit()
        finally:
            note_commit((time.perf_counter() - started) * 1000)
