"""ecommerce's order API as the LMS bench needs it: every basket answered at once with a completed
order, canned, on kept-alive HTTP/1.1, by a process of its own (standard library only), so that
none of its work is counted as the LMS's. It calls nothing back: the bench makes the enrollment
call itself.

    python -m lms_stub.bench.ecommerce     prints its port on the first line, then serves
"""

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from common.contract import paths
from common.contract.courses import CURRENCY, FREE_PRICE, seat
from common.contract.statuses import LINE, ORDER

# What ecommerce's order API answers a free checkout with (ecommerce/orders/representation.py),
# and the headers it sends beside the body (its middleware's, and Server-Timing, which the LMS
# forwards).
SEAT = seat(1)
ORDER_BODY = json.dumps(
    {
        "id": 1,
        "order": {
            "number": "EDX-100001",
            "status": ORDER.COMPLETE,
            "total_excl_tax": str(FREE_PRICE),
            "currency": CURRENCY,
            "date_placed": "2026-12-07T18:00:00.000000+00:00",
            "lines": [
                {
                    "sku": SEAT.sku,
                    "title": f"Seat in {SEAT.course_id} with honor certificate",
                    "quantity": 1,
                    "line_price_excl_tax": str(FREE_PRICE),
                    "status": LINE.COMPLETE,
                }
            ],
        },
    }
).encode()
HEADERS = (
    ("Content-Type", "application/json"),
    ("Vary", "Accept"),
    ("Allow", "POST, OPTIONS"),
    ("X-Frame-Options", "DENY"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Server-Timing", 'db;dur=4.1;desc="11 queries, 2 commits", lms;dur=3.2, app;dur=6.0, total;dur=13.3'),
)


class OrderApi(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # kept alive, as ecommerce's gunicorn keeps the LMS's connections

    def do_POST(self) -> None:  # noqa: N802  (http.server's name)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path != paths.BASKETS:
            self._answer(404, b'{"error": "not_found", "message": "Not found."}', ())
            return
        self._answer(201, ORDER_BODY, HEADERS)

    def _answer(self, status: int, body: bytes, headers) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args) -> None:  # noqa: A002  (http.server's name)
        pass


@contextmanager
def running() -> Iterator[str]:
    """The stand-in in a process of its own while inside: its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "lms_stub.bench.ecommerce"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), OrderApi)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
