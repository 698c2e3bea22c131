"""The bare handler: a WSGI application that answers each hop's request with the answer the real
endpoint gave, canned: the same status, the same headers, a body of the same bytes.

It reads the request's body, as any application must, and does nothing else: no routing beyond
a dictionary, no middleware, no database. What a request costs it is gunicorn's work (accepting,
parsing, the worker's loop, writing the answer) and the least an application can add.

The answers reach the worker through the environment (``FLOOR_ANSWERS``, JSON) from
``server.BareServer``; a request no answer is canned for gets a small 404.
"""

import json
import os
from dataclasses import dataclass
from http import HTTPStatus

ANSWERS_VARIABLE = "FLOOR_ANSWERS"
# gunicorn writes these itself (Date, Server), or they belong to the connection, not to what the
# application answered: a canned answer leaves them to gunicorn, as Django's do. Without a
# Content-Length gunicorn sends the body chunked, as it did the real one's.
SERVER_HEADERS = frozenset({"date", "server", "connection", "keep-alive", "transfer-encoding"})
HEALTH = "GET /health/"


@dataclass(frozen=True)
class Answer:
    """What an endpoint answered: its status, the headers its application set, its body."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes

    @property
    def status_line(self) -> str:
        return f"{self.status} {HTTPStatus(self.status).phrase}"

    @classmethod
    def of_reply(cls, reply) -> "Answer":
        """From a reply of common.http_client: every header but the server's own."""
        headers = tuple(
            (name, value) for name, value in reply.headers.items() if name.lower() not in SERVER_HEADERS
        )
        return cls(reply.status_code, headers, reply.content)

    def to_json(self) -> dict:
        return {
            "status": self.status,
            "headers": [list(pair) for pair in self.headers],
            "body": self.body.hex(),
        }

    @classmethod
    def from_json(cls, data: dict) -> "Answer":
        return cls(
            data["status"],
            tuple((name, value) for name, value in data["headers"]),
            bytes.fromhex(data["body"]),
        )


NOT_FOUND = Answer(404, (("Content-Type", "text/plain"),), b"no answer is canned for this request\n")
HEALTHY = Answer(200, (("Content-Type", "text/plain"),), b"ok\n")


def route(method: str, path: str) -> str:
    """The key an answer is canned under: "POST /api/v2/baskets/"."""
    return f"{method} {path}"


def encode(answers: dict[str, Answer]) -> str:
    """The answers as the environment carries them to the worker."""
    return json.dumps({key: answer.to_json() for key, answer in answers.items()})


def decode(text: str) -> dict[str, Answer]:
    return {key: Answer.from_json(data) for key, data in json.loads(text or "{}").items()}


ANSWERS = {HEALTH: HEALTHY, **decode(os.environ.get(ANSWERS_VARIABLE, ""))}


def application(environ, start_response):
    """The canned answer to this request, after reading its body."""
    length = int(environ.get("CONTENT_LENGTH") or 0)
    if length:
        environ["wsgi.input"].read(length)
    answer = ANSWERS.get(route(environ["REQUEST_METHOD"], environ["PATH_INFO"]), NOT_FOUND)
    start_response(answer.status_line, list(answer.headers))
    return [answer.body]
