"""One free purchase through the running stack, hop by hop, and each hop as a request that can be
sent again: to the real service (to learn what it answers) or to a bare handler.

    learner  -> lms_stub   GET  /auto_auth                       (as Locust's learner sends it)
    learner  -> lms_stub   POST /api/commerce/v0/baskets/        (its cookies, CSRF token, Referer)
    lms_stub -> ecommerce  POST /api/v2/baskets/                 (JWT; as lms_stub/commerce sends it)
    ecommerce -> lms_stub  POST /api/enrollment/v1/enrollment    (API key; as the fulfilment sends it)

The learner's two requests are made here as Locust makes them (its client's User-Agent; the
encoding it accepts is the one thing common.http_client sends otherwise). The two calls between
the services are made here with the services' own client, common.http_client, with the bodies
and headers they send: the order for a new learner (a purchase of its own), the enrollment for
the learner who just bought (the API is idempotent: nothing changes).
"""

from dataclasses import dataclass, field

import geventhttpclient

from common import http_client
from common.contract import courses, paths, tokens
from common.environment import get
from floor.canned import Answer, route

TIMEOUT = 30.0
# What Locust's FastHttpUser sends as its User-Agent: geventhttpclient's.
LEARNER_AGENT = f"python/gevent-http-client-{geventhttpclient.__version__}"
LEARNER = None  # the caller of the learner's hops: Locust, not a service


class PurchaseFailed(RuntimeError):
    """A hop of the real purchase did not answer as a purchase needs."""


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    json: dict | None = None

    @property
    def route(self) -> str:
        return route(self.method, self.path)

    def send(self, base_url: str, timeout: float = TIMEOUT) -> http_client.Reply:
        return http_client.request(
            self.method, base_url + self.path, json=self.json, headers=self.headers, timeout=timeout
        )


@dataclass(frozen=True)
class Hop:
    """One hop: who answers it, who makes it (None: the learner), the request, the real answer."""

    name: str
    server: str
    caller: str | None
    request: Request
    answer: Answer


def expect(reply: http_client.Reply, status: int, what: str) -> http_client.Reply:
    if reply.status_code != status:
        raise PurchaseFailed(f"{what}: {reply.status_code} {reply.text[:300]}")
    return reply


def cookies(reply: http_client.Reply) -> str:
    """The Cookie header a browser (or Locust's cookie jar) sends back after ``reply``."""
    return "; ".join(
        value.split(";", 1)[0] for name, value in reply.headers.items() if name.lower() == "set-cookie"
    )


def login_request() -> Request:
    return Request("GET", paths.AUTO_AUTH, {"User-Agent": LEARNER_AGENT})


def basket_request(login: http_client.Reply, lms_url: str, course_id: str) -> Request:
    headers = {
        "User-Agent": LEARNER_AGENT,
        "Cookie": cookies(login),
        "X-CSRFToken": login.json()["csrf_token"],
        "Referer": lms_url + "/",
    }
    return Request("POST", paths.COMMERCE_BASKETS, headers, {"course_id": course_id})


@dataclass(frozen=True)
class Bought:
    """The learner's two hops of a purchase that completed, and the learner's name."""

    username: str
    hops: tuple[Hop, Hop]


def buy(env, number: int = 1) -> Bought:
    """A new learner buys course ``number``'s free seat through lms_stub."""
    lms_url = get("LMS_URL", env)
    login = login_request()
    logged_in = expect(login.send(lms_url), 201, f"GET {paths.AUTO_AUTH}")
    basket = basket_request(logged_in, lms_url, courses.seat(number).course_id)
    bought = expect(basket.send(lms_url), 201, f"POST {paths.COMMERCE_BASKETS}")
    return Bought(
        logged_in.json()["username"],
        (
            Hop(f"learner -> lms_stub {login.route}", "lms_stub", LEARNER, login, Answer.of_reply(logged_in)),
            Hop(f"learner -> lms_stub {basket.route}", "lms_stub", LEARNER, basket, Answer.of_reply(bought)),
        ),
    )


def order_request(env, username: str, number: int = 1) -> Request:
    """lms_stub's call for ``username`` (lms_stub/commerce/ecommerce_client.py: its token, its body)."""
    token = tokens.mint(
        get("JWT_SECRET_KEY", env),
        get("JWT_ISSUER", env),
        username,
        f"{username}@example.com",
        get("JWT_LIFETIME_SECONDS", env),
    )
    body = {"products": [{"sku": courses.seat(number).sku}], "checkout": True}
    return Request("POST", paths.BASKETS, tokens.authorization(token), body)


def enrollment_request(env, username: str, number: int = 1) -> Request:
    """ecommerce's call for ``username`` (ecommerce/fulfillment/modules.py: its key, its body)."""
    seat = courses.seat(number)
    body = {
        "user": username,
        "is_active": True,
        "mode": seat.mode,
        "course_details": {"course_id": seat.course_id},
    }
    return Request("POST", paths.ENROLLMENT, {"X-Edx-Api-Key": get("EDX_API_KEY", env)}, body)


def service_hops(env, bought: Bought, stranger: str, number: int = 1) -> tuple[Hop, Hop]:
    """The two calls between the services, made to the real services for their answers: the
    order for ``stranger``, a learner ecommerce has not seen (as the bought one was, at its
    purchase), and the enrollment of the learner who bought."""
    order = order_request(env, stranger, number)
    ordered = expect(order.send(get("ECOMMERCE_URL", env)), 201, f"POST {paths.BASKETS}")
    enrol = enrollment_request(env, bought.username, number)
    enrolled = expect(enrol.send(get("LMS_URL", env)), 200, f"POST {paths.ENROLLMENT}")
    return (
        Hop(f"lms_stub -> ecommerce {order.route}", "ecommerce", "lms_stub", order, Answer.of_reply(ordered)),
        Hop(
            f"ecommerce -> lms_stub {enrol.route}", "lms_stub", "ecommerce", enrol, Answer.of_reply(enrolled)
        ),
    )
