"""A free purchase's three calls at the LMS, each a WSGI call as gunicorn's worker makes it, and
what they cost (the package's docstring says what is held still, and why)."""

import cProfile
import io
import json
import sys
import time
from dataclasses import dataclass

import gevent
import geventhttpclient
from django.conf import settings

from common import callgrind
from common.contract import paths
from common.contract.courses import seat

CALLS = ("login", "basket", "enrollment")
SEAT = seat(1)
# What Locust's FastHttpUser sends (floor/purchase.py: its client is geventhttpclient's), and
# what ecommerce's client sends (common/http_client.py, ecommerce/fulfillment/modules.py).
LEARNER_HEADERS = {
    "User-Agent": f"python/gevent-http-client-{geventhttpclient.__version__}",
    "Accept-Encoding": "identity",
}
ECOMMERCE_HEADERS = {"Accept-Encoding": "identity"}


class BenchFailed(RuntimeError):
    """A call was not answered as a purchase needs."""


@dataclass(frozen=True)
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def json(self):
        return json.loads(self.body)

    def cookies(self) -> str:
        """The Cookie header a browser sends back after this answer."""
        sent = [value for name, value in self.headers if name.lower() == "set-cookie"]
        return "; ".join(value.split(";", 1)[0].strip() for value in sent)


def environ(method: str, path: str, headers: dict[str, str], body: bytes = b"") -> dict:
    """The WSGI environ gunicorn builds for a request on 127.0.0.1 (gunicorn/http/wsgi.py)."""
    env = {
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.input_terminated": True,
        "SERVER_SOFTWARE": "gunicorn",
        "REQUEST_METHOD": method,
        "QUERY_STRING": "",
        "RAW_URI": path,
        "SERVER_PROTOCOL": "HTTP/1.1",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_PORT": "40000",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "HTTP_HOST": "127.0.0.1",
    }
    for name, value in headers.items():
        key = name.upper().replace("-", "_")
        env[key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{key}"] = value
    if body:
        env["CONTENT_LENGTH"] = str(len(body))
    return env


class Purchases:
    """Purchases through ``app``; with ``marks``, each call of a measured purchase marked out for
    callgrind (common/callgrind.py: one stretch per call, in the order of CALLS)."""

    def __init__(self, app, marks: bool):
        self.app, self.marks = app, marks
        self.measuring = False
        self.cpu = dict.fromkeys(CALLS, 0.0)  # seconds by call, over the measured purchases

    def call(self, name: str, env: dict, expected: int) -> Answer:
        started: list = []

        def start_response(status, headers, exc_info=None):
            started.append((int(status.split(" ", 1)[0]), headers))
            return lambda data: None

        counted = self.measuring and self.marks
        cpu = time.process_time()
        if counted:
            callgrind.start_counting()
        result = self.app(env, start_response)
        try:
            body = b"".join(result)
        finally:
            result.close()  # the end of the request (request_finished), as a server ends it
        if counted:
            callgrind.stop_counting()
        if self.measuring:
            self.cpu[name] += time.process_time() - cpu
        status, headers = started[0]
        if status != expected:
            raise BenchFailed(f"{name}: {status} {body[:300]!r}")
        return Answer(status, headers, body)

    def learner(self) -> str:
        """A new learner's login and basket, as a new client connection's requests: its name."""
        login = self.call("login", environ("GET", paths.AUTO_AUTH, LEARNER_HEADERS), 201)
        logged_in = login.json()
        headers = {
            **LEARNER_HEADERS,
            "Cookie": login.cookies(),
            "X-CSRFToken": logged_in["csrf_token"],
            "Referer": "http://127.0.0.1/",
            "Content-Type": "application/json",
        }
        body = json.dumps({"course_id": SEAT.course_id}).encode()
        answer = self.call("basket", environ("POST", paths.COMMERCE_BASKETS, headers, body), 201)
        if answer.json().get("enrolled") is not True:
            raise BenchFailed(f"basket: {answer.body[:300]!r}")
        return logged_in["username"]

    def enrol(self, username: str) -> None:
        """ecommerce's enrollment call for ``username``, as its fulfilment sends it."""
        body = {
            "user": username,
            "is_active": True,
            "mode": SEAT.mode,
            "course_details": {"course_id": SEAT.course_id},
        }
        headers = {
            **ECOMMERCE_HEADERS,
            "X-Edx-Api-Key": settings.EDX_API_KEY,
            "Content-Type": "application/json",
        }
        self.call("enrollment", environ("POST", paths.ENROLLMENT, headers, json.dumps(body).encode()), 200)

    def one(self) -> None:
        # A greenlet per learner, as gunicorn's worker spawns one per client connection; the
        # enrollment call in this one, which lives on (ecommerce's kept-alive connection).
        self.enrol(gevent.spawn(self.learner).get())


def measure(app, purchases: int, warmup: int, marks: bool, profile: str | None = None) -> dict:
    """``purchases`` purchases after ``warmup`` unmeasured ones: CPU per purchase and per call;
    with ``profile``, cProfile's statistics of the measured ones written to that file."""
    bench = Purchases(app, marks)
    for _ in range(warmup):
        bench.one()
    bench.measuring = True
    profiler = cProfile.Profile() if profile else None
    started = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    for _ in range(purchases):
        bench.one()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    wall = time.perf_counter() - started
    cpu = bench.cpu
    return {
        "purchases": purchases,
        "warmup": warmup,
        "cpu_ms_per_purchase": round(sum(cpu.values()) * 1000 / purchases, 3),
        "cpu_ms_per_call": {name: round(cpu[name] * 1000 / purchases, 3) for name in CALLS},
        "wall_ms_per_purchase": round(wall * 1000 / purchases, 3),
    }
