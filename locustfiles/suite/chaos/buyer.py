"""The second client: purchases sent straight to ecommerce, as the LMS would send them, with a
learner's JWT signed by the stack's secret. The duplicates fault needs requests the Locust
users never make (twenty with one Idempotency-Key at once, the same seat twice without one)."""

import gevent
import requests

from common.contract import paths, tokens
from common.environment import get


class Buyer:
    def __init__(self, ecommerce_url: str, env: dict):
        self.ecommerce_url = ecommerce_url
        self.jwt_secret = get("JWT_SECRET_KEY", env)
        self.jwt_issuer = get("JWT_ISSUER", env)

    def token(self, username: str) -> str:
        return tokens.mint(self.jwt_secret, self.jwt_issuer, username, f"{username}@example.com", 300)

    def purchase_at_once(self, learner: str, sku: str, count: int, key: str | None) -> dict:
        """`count` purchases of one seat by one learner, all in flight together: the answers
        by status, the order numbers of the 2xx answers and the error codes of the others."""
        headers = {**tokens.authorization(self.token(learner)), "Content-Type": "application/json"}
        if key:
            headers["Idempotency-Key"] = key
        body = {"products": [{"sku": sku}], "checkout": True}

        def send():
            try:
                response = requests.post(
                    self.ecommerce_url + paths.BASKETS, json=body, headers=headers, timeout=30
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
