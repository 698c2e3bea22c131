"""What a 2015 ecommerce client puts on the wire: run it against a recording stand-in of the
2015 services and print every request it sent, as JSON.

    python -m tests.support.edx2015_wire [--host LMS_URL] LOCUSTFILE TASK [TASK ...]

LOCUSTFILE is the client's locustfile (ours, locustfiles/edx2015/locustfile.py, or edX's own,
edited for today's Locust by scripts/edx2015-original.sh); each TASK is ``free`` or ``paid``:
one call of BasketsTasks' or CybersourcePaymentTasks' task, in order, by one Locust user (one
session). The stand-in answers as edX's LMS and Otto did (research notes: /auto_auth's JSON and
cookies, a paid checkout's ``payment_data``), on one address for both, with learners,
tokens, basket ids and order numbers counted from 1, so two clients that send the same requests
print the same records. STAND_ANSWERS (JSON, path or path prefix -> [status, body]) replaces
answers, to see what the client does with a refusal. With --host, the tasks run against that
LMS (a real stack) with the client's settings as the environment has them, nothing recorded.

It prints one JSON object: ``requests``, each with method, path, query, headers in the order
sent, body, the time it arrived, and for a notification whether its signature is CyberSource's
over the fields it lists; ``tasks``, how each task ended (``null``, ``http <status>`` for an
exception that carries an answer, else the exception's type); ``stats``, Locust's requests
and failures per method and stats name.

Against the stand-in, the client's settings are set here before its locustfile is read (it
reads them on import).
"""

import base64
import hashlib
import hmac
import json
import os
import sys
import time
from urllib.parse import parse_qs

from gevent import pywsgi  # Locust patches the process for gevent; the stand-in serves in a greenlet

SETTINGS = {
    "FREE_COURSE_ID": "course-v1:edX+DemoX+Demo_Course",
    "PAID_SKU": "8CF08E5",
    "ECOMMERCE_JWT_SECRET_KEY": "insecure-test-secret-key",  # edX devstack: insecure-secret-key
    "ECOMMERCE_JWT_ISSUER": "http://127.0.0.1:8000/oauth2",
    "ECOMMERCE_ORDER_PREFIX": "OSCR",
    "CYBERSOURCE_SECRET_KEY": "fake-secret-key",
    "EDX2015_WAIT_SCALE": "0",
}
AMOUNT = "49.00"


class Stand2015:
    """The LMS and Otto as the 2015 client met them, recording what it sends."""

    def __init__(self, replaced: dict[str, list]):
        self.replaced = replaced
        self.records: list[dict] = []
        self.learners = 0
        self.baskets = 0

    def __call__(self, environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        path = environ["PATH_INFO"]
        record = {
            "at": time.time(),
            "method": environ["REQUEST_METHOD"],
            "path": path,
            "query": environ.get("QUERY_STRING", ""),
            "headers": environ["edx2015.headers"],
            "body": body.decode("utf-8", "replace"),
        }
        self.records.append(record)
        status, headers, answer = self.answer(record, body)
        for prefix, (code, text) in self.replaced.items():
            if path.startswith(prefix):
                status, headers, answer = f"{code} Replaced", [], text.encode()
        start_response(status, [("Content-Type", "application/json"), *headers])
        return [answer]

    def answer(self, record: dict, body: bytes) -> tuple[str, list, bytes]:
        path = record["path"]
        if path == "/auto_auth":
            self.learners += 1
            n = self.learners
            learner = {
                "created_status": "Created",
                "username": f"learner{n}",
                "email": f"learner{n}@example.com",
                "password": f"password{n}",
                "user_id": n,
                "anonymous_id": f"anonymous{n}",
            }
            cookies = [
                ("Set-Cookie", f"csrftoken=csrf{n}; Path=/"),
                ("Set-Cookie", f"sessionid=session{n}; Path=/"),
            ]
            return "200 OK", cookies, json.dumps(learner).encode()
        if path == "/api/commerce/v0/baskets/":
            return "200 OK", [], b'{"detail": "enrolled"}'
        if path == "/api/v2/payment/processors/":
            return "200 OK", [], b'["cybersource"]'
        if path == "/api/v2/baskets/":
            self.baskets += 1
            form = {"amount": AMOUNT, "reference_number": f"OSCR-{100000 + self.baskets}"}
            data = {
                "payment_processor_name": "cybersource",
                "payment_form_data": form,
                "payment_page_url": "/pay",
            }
            return (
                "200 OK",
                [],
                json.dumps({"id": self.baskets, "order": None, "payment_data": data}).encode(),
            )
        if path == "/payment/cybersource/notify/":
            record["signature_valid"] = signature_valid(parse_qs(body.decode()))
            return "200 OK", [], b""
        if path.startswith("/api/v2/orders/"):
            return "200 OK", [], json.dumps({"number": path.split("/")[-2]}).encode()
        return "404 Not Found", [], b'{"detail": "Not found."}'


def signature_valid(form: dict[str, list[str]]) -> bool:
    """CyberSource's check, written here from its documentation's rule, not the client's code."""
    fields = {name: values[0] for name, values in form.items()}
    message = ",".join(f"{name}={fields[name]}" for name in fields["signed_field_names"].split(","))
    key = SETTINGS["CYBERSOURCE_SECRET_KEY"].encode()
    expected = base64.b64encode(hmac.new(key, message.encode(), hashlib.sha256).digest()).decode()
    return hmac.compare_digest(expected, fields["signature"])


class RecordingHandler(pywsgi.WSGIHandler):
    """Keeps the request's headers as sent: names, case and order (WSGI's environ loses them)."""

    def get_environ(self):
        environ = super().get_environ()
        environ["edx2015.headers"] = [
            [line.split(":", 1)[0], line.split(":", 1)[1].strip()] for line in self.headers.headers
        ]
        return environ


def run(
    locustfile: str,
    tasks: list[str],
    answers: dict | None = None,
    pythonpath: str | None = None,
    host: str | None = None,
    env: dict | None = None,
) -> dict:
    """What ``main`` prints, from a child process (Locust patches the process it runs in);
    against the LMS at ``host`` instead of the stand-in if given, in ``env`` (os.environ)."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {
        **(env or os.environ),
        "PYTHONPATH": pythonpath or root,
        "STAND_ANSWERS": json.dumps(answers or {}),
    }
    against = ["--host", host] if host else []
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.edx2015_wire", *against, locustfile, *tasks],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def decoded_token(authorization: str) -> tuple[dict, dict]:
    """The header and claims of ``JWT <token>`` (the signature is checked by whoever needs it)."""
    scheme, token = authorization.split(" ", 1)
    assert scheme == "JWT"
    head, claims, _ = token.split(".")
    decode = lambda part: json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))  # noqa: E731
    return decode(head), decode(claims)


def token_ahead_as_signed(exp: int, arrived: float) -> bool:
    """Whether a token expiring at ``exp`` was signed, as the client does, 30 s ahead of the
    whole second it was signed in, before its request ``arrived``. The client floors the time,
    so a token arrives at most 30 s ahead of its expiry; a busy machine may take a second or
    more between signing and arrival, so the lower bound leaves two."""
    return 28 < exp - arrived <= 30


def comparable(output: dict) -> dict:
    """``output`` without what differs between two runs of one client: the stand-in's port, the
    arrival times, and a token's expiry (kept as how far it lies after its request arrived)."""
    requests = []
    for record in output["requests"]:
        headers = []
        for name, value in record["headers"]:
            if name in ("Host", "Referer"):
                value = value.rsplit(":", 1)[0]
            elif name == "Authorization":
                head, claims = decoded_token(value)
                ahead = claims["exp"] - record["at"]
                claims["exp"] = "30 s ahead" if token_ahead_as_signed(claims["exp"], record["at"]) else ahead
                value = {"header": head, "claims": list(claims.items())}
            headers.append([name, value])
        requests.append({**{k: v for k, v in record.items() if k != "at"}, "headers": headers})
    return {**output, "requests": requests}


def main(argv: list[str]) -> int:
    stand = server = None
    if argv[0] == "--host":  # a real stack: its LMS, and the client's settings as they are
        host, argv = argv[1], argv[2:]
    else:
        stand = Stand2015(json.loads(os.environ.get("STAND_ANSWERS") or "{}"))
        server = pywsgi.WSGIServer(("127.0.0.1", 0), stand, handler_class=RecordingHandler, log=None)
        server.start()
        host = f"http://127.0.0.1:{server.server_port}"
        os.environ.update(SETTINGS, ECOMMERCE_SERVICE_URL=host)
    locustfile, tasks = argv[0], argv[1:]

    from locust.env import Environment
    from locust.util.load_locustfile import load_locustfile

    users, _ = load_locustfile(locustfile)
    module = sys.modules[users["EcommerceLocust"].__module__]
    user_class = users["EcommerceLocust"]
    user_class.host = host  # what a runner does with --host
    environment = Environment(user_classes=[user_class], host=host, catch_exceptions=False)
    environment.create_local_runner()  # it counts the requests (no user is spawned)
    user = user_class(environment)
    ended = []
    for name in tasks:
        try:
            if name == "free":
                module.BasketsTasks(user).purchase_single_free_product()
            else:
                module.CybersourcePaymentTasks(user).payment_process()
            ended.append(None)
        except Exception as exc:  # what Locust would report as a task exception
            response = getattr(exc, "response", None)
            ended.append(f"http {response.status_code}" if response is not None else type(exc).__name__)
    if server is not None:
        server.stop()
    stats = {
        f"{method} {name}": [entry.num_requests, entry.num_failures]
        for (name, method), entry in sorted(environment.stats.entries.items())
    }
    print(json.dumps({"requests": stand.records if stand else [], "tasks": ended, "stats": stats}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
