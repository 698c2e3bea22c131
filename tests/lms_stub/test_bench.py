"""make bench-lms (lms_stub/bench/): a free purchase's three calls at the LMS in-process, against
the test MariaDB and the bench's own stand-in of ecommerce; each measured call marked out alone
for callgrind. (Under callgrind it takes minutes: `make bench-lms CALLGRIND=1`, not a test.)"""

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings

from common import callgrind, http_client
from common.contract import paths
from common.contract.statuses import ORDER
from common.environment import ROOT
from lms_stub.bench import ecommerce, instructions, purchase
from lms_stub.enrollment.models import Enrollment


@pytest.mark.django_db(transaction=True)
def test_the_bench_makes_whole_purchases_and_says_what_each_call_cost():
    env = {**os.environ, "LMS_DB_NAME": settings.DATABASES["default"]["NAME"]}
    done = subprocess.run(
        [sys.executable, "-m", "lms_stub.bench", "--purchases", "3", "--warmup", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert (result["purchases"], result["warmup"]) == (3, 1)
    assert set(result["cpu_ms_per_call"]) == set(purchase.CALLS)
    assert all(ms > 0 for ms in result["cpu_ms_per_call"].values())
    assert result["cpu_ms_per_purchase"] == pytest.approx(sum(result["cpu_ms_per_call"].values()), abs=0.01)
    # Four learners (the warm-up's among them) logged in, bought and were enrolled, once each.
    enrolled = Enrollment.objects.filter(course_id=purchase.SEAT.course_id, mode=purchase.SEAT.mode)
    assert enrolled.count() == 4
    assert len({row.user for row in enrolled}) == 4


def test_each_measured_call_is_a_stretch_of_its_own_and_nothing_else_is(monkeypatch):
    seen: list[str] = []
    answers = {
        paths.AUTO_AUTH: ("201 Created", b'{"csrf_token": "t", "username": "ana"}'),
        paths.COMMERCE_BASKETS: ("201 Created", b'{"enrolled": true}'),
        paths.ENROLLMENT: ("200 OK", b"{}"),
    }

    def app(environ, start_response):
        seen.append(environ["PATH_INFO"])
        status, body = answers[environ["PATH_INFO"]]
        start_response(status, [("Set-Cookie", "sessionid=s; Path=/")])
        return Body(body)

    monkeypatch.setattr(callgrind, "start_counting", lambda: seen.append("start"))
    monkeypatch.setattr(callgrind, "stop_counting", lambda: seen.append("stop"))
    result = purchase.measure(app, purchases=2, warmup=1, marks=True)
    assert result["purchases"] == 2
    one = [paths.AUTO_AUTH, paths.COMMERCE_BASKETS, paths.ENROLLMENT]
    assert seen == one + [step for path in one * 2 for step in ("start", path, "stop")]


class Body(list):
    """An answer's body as Django's: iterable, closed by the server."""

    def __init__(self, body: bytes):
        super().__init__([body])

    def close(self) -> None:
        pass


def test_a_call_answered_otherwise_than_a_purchase_needs_stops_the_bench():
    def app(environ, start_response):
        start_response("403 Forbidden", [])
        return Body(b'{"error": "invalid_credentials"}')

    with pytest.raises(purchase.BenchFailed, match="login: 403"):
        purchase.measure(app, purchases=1, warmup=1, marks=False)


def test_stretches_are_the_calls_in_turn_purchase_after_purchase():
    assert instructions.per_call([10, 20, 30, 12, 22, 32], 2) == {"login": 11, "basket": 21, "enrollment": 31}
    with pytest.raises(callgrind.CountFailed, match="2 stretches for 1 purchases"):
        instructions.per_call([10, 20], 1)


def test_the_ecommerce_stand_in_answers_every_basket_with_a_completed_order():
    try:
        with ecommerce.running() as url:
            for _ in range(2):
                reply = http_client.post(url + paths.BASKETS, json={"products": []}, timeout=10)
                assert reply.status_code == 201
                assert reply.json()["order"]["status"] == ORDER.COMPLETE
                assert reply.headers.get("Server-Timing")
            assert http_client.post(url + paths.ORDERS, json={}, timeout=10).status_code == 404
    finally:
        http_client.close_all()
