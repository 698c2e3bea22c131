"""The HTTP floor: each hop's request sent again and again to a bare handler that answers it as the
real endpoint did, and the CPU both ends spent per request.

The server's side is the bare gunicorn's (master and worker) CPU time, read with psutil before
and after; the client's side is this process's, which does nothing else meanwhile. Requests go
one after another on one kept-alive connection, common.http_client's: the least a hop can cost.
A new connection per request, or many at once, costs more, and that is the real path's to show.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from common import http_client
from floor.purchase import Hop
from floor.server import BareServer


@dataclass(frozen=True)
class HopCost:
    """What one request of a hop cost, in CPU milliseconds: the bare server's, and the client's
    (counted for a service only where the service makes the hop)."""

    hop: str
    server: str
    caller: str | None
    status: int
    answer_bytes: int
    server_ms: float
    client_ms: float

    def to_json(self) -> dict:
        return dict(self.__dict__)


def per_request_ms(before: float, after: float, requests: int) -> float:
    """CPU seconds between two readings as milliseconds per request."""
    return round(max(after - before, 0.0) * 1000 / requests, 4)


def drive(hop: Hop, url: str, server_cpu: Callable[[], float], requests: int, warmup: int) -> HopCost:
    """``requests`` of ``hop`` to ``url`` after ``warmup`` unmeasured ones; each must be answered
    with the hop's status."""
    for _ in range(warmup):
        send(hop, url)
    server_before, client_before = server_cpu(), time.process_time()
    for _ in range(requests):
        send(hop, url)
    client_after, server_after = time.process_time(), server_cpu()
    return HopCost(
        hop.name,
        hop.server,
        hop.caller,
        hop.answer.status,
        len(hop.answer.body),
        per_request_ms(server_before, server_after, requests),
        per_request_ms(client_before, client_after, requests),
    )


def send(hop: Hop, url: str) -> None:
    reply = hop.request.send(url)
    if reply.status_code != hop.answer.status:
        raise RuntimeError(
            f"{hop.name}: the bare handler answered {reply.status_code}, not {hop.answer.status}"
        )


def measure(hops: list[Hop], folder: Path, requests: int, warmup: int) -> list[HopCost]:
    """Every hop against a bare handler of the service that answers it: one server per service,
    canned with that service's answers, stopped before the next starts."""
    costs = {}
    for service in dict.fromkeys(hop.server for hop in hops):
        served = [hop for hop in hops if hop.server == service]
        answers = {hop.request.route: hop.answer for hop in served}
        with BareServer(service, answers, folder / service) as server:
            try:
                for hop in served:
                    costs[hop.name] = drive(hop, server.url, server.cpu_seconds, requests, warmup)
            finally:
                http_client.close_all()  # its worker then stops at once, not after keep-alive
    return [costs[hop.name] for hop in hops]
