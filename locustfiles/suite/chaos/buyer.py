"""The second client: purchases sent straight to ecommerce, as the LMS would send them, with a
learner's JWT signed by the stack's secret, and the payment processor's notifications, signed
with the stack's processor secret. The duplicates fault needs requests the Locust users never
make (twenty with one Idempotency-Key at once, the same seat twice without one); the payment
faults play the processor (a notification twice, one late)."""

import gevent
import requests
from gevent.event import Event

from common.contract import cybersource, paths, tokens
from common.environment import get
from locustfiles.suite.users import paid_journey


class Buyer:
    def __init__(self, ecommerce_url: str, env: dict):
        self.ecommerce_url = ecommerce_url
        self.jwt_secret = get("JWT_SECRET_KEY", env)
        self.jwt_issuer = get("JWT_ISSUER", env)
        self.processor_secret = get("CYBERSOURCE_SECRET_KEY", env)

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
        placed = {(body.get("order") or {}).get("number") for status, body in answers if 200 <= status < 300}
        numbers = sorted(number for number in placed if number is not None)
        codes = sorted({body.get("error") for status, body in answers if status >= 400} - {None})
        return {
            "learner": learner,
            "requests": count,
            "statuses": statuses,
            "order_numbers": numbers,
            "codes": codes,
        }

    def paid_checkout(self, learner: str, sku: str) -> dict[str, str]:
        """A paid checkout of one seat: the signed checkout form (payment_form_data) ecommerce
        answered. RuntimeError when it answered anything else."""
        response = requests.post(
            self.ecommerce_url + paths.BASKETS,
            json=paid_journey.basket_body(sku),
            headers=tokens.authorization(self.token(learner)),
            timeout=30,
        )
        if response.status_code != 201 or not (response.json() or {}).get("payment_data"):
            raise RuntimeError(f"a paid checkout was answered {response.status_code}: {response.text[:200]}")
        return response.json()["payment_data"]["payment_form_data"]

    def accepted(self, form: dict[str, str]) -> dict[str, str]:
        """The processor's notification that it took the payment of checkout ``form``."""
        return cybersource.notification(form, self.processor_secret)

    def notify(self, fields: dict[str, str], copies: int = 1) -> list[int]:
        """Post ``fields`` to ecommerce's notify URL as the processor does; with ``copies``, that
        many at the same moment. The status of each answer (0: no answer)."""
        url = self.ecommerce_url + paths.payment_notification(cybersource.PROCESSOR)
        ready = Event()

        def send():
            ready.wait()
            try:
                return requests.post(url, data=fields, timeout=30).status_code
            except requests.RequestException:
                return 0

        senders = [gevent.spawn(send) for _ in range(copies)]
        gevent.sleep(0)  # every sender waits at the line
        ready.set()
        return [sender.value for sender in gevent.joinall(senders)]
