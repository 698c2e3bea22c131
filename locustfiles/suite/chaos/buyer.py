"""The second client: purchases sent straight to ecommerce, as the LMS would send them, with a
learner's JWT signed by the stack's secret. The duplicates fault needs requests the Locust
users never make (twenty with one Idempotency-Key at once, the same seat twice without one)."""

import time

import gevent
import jwt
import requests

from common.environment import get


class Buyer:
    def __init__(self, ecommerce_url: str, env: dict):
        self.ecommerce_url = ecommerce_url
        self.jwt_secret = get("JWT_SECRET_KEY", env)
        self.jwt_issuer = get("JWT_ISSUER", env)

    def token(self, username: str) -> str:
        claims = {
            "username": username,
            "email": f"{username}@example.com",
            "iss": self.jwt_issuer,
            "exp": int(time.time()) + 300,
        }
        return jwt.encode(claims, self.jwt_secret, algorithm="HS256")

    def purchase_at_once(self, learner: str, sku: str, count: int, key: str | None) -> dict:
        """`count` purchases of one seat by one learner, all in flight together: the answers
        by status, the order numbers of the 2xx answers and the error codes of the others."""
        headers = {"Authorization": "JWT " + self.token(learner), "Content-Type": "application/json"}
        if key:
            headers["Idempotency-Key"] = key
        body = {"products": [{"sku": sku}], "checkout": True}

        def send():
            try:
                response = requests.post(
                    f"{self.ecommerce_url}/api/v2/baskets/", json=body, headers=headers, timeout=30
                )
            except requests.RequestException as exc:
                return 0, {"error": type(exc).__name__}
            try:
                return response.status_code, response.json()
            except ValueError:
                return response.status_code, {"error": "not_json"}

        answers = [g.value for g in gevent.joinall([gevent.spawn(send) for _ in range(count)])]
        statuses: dict[str, int] = {}
        for status, _ in answers:
            statuses[str(status)] = statuses.get(str(status), 0) + 1
        numbers = sorted(
            {(body.get("order") or {}).get("number") for status, body in answers if 200 <= status < 300}
            - {None}
        )
        codes = sorted({body.get("error") for status, body in answers if status >= 400} - {None})
        return {
            "learner": learner,
            "requests": count,
            "statuses": statuses,
            "order_numbers": numbers,
            "codes": codes,
        }
