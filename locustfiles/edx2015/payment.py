"""The paid purchase (2015: locust/ecommerce/payment.py): a new learner pays for a seat with
CyberSource, the processor's part played by the client itself.

In order: the learner's payment page lists the processors (``GET payment/processors/``, answer
unread); the learner's basket is checked out with CyberSource (``POST baskets/``), whose answer
gives the basket id and the amount to pay; CyberSource's signed notification of an accepted
payment is sent to ecommerce (``POST /payment/cybersource/notify/``, status only); the receipt
page reads the order (``GET orders/<number>/``, answer unread, stats name
``/api/v2/orders/:id/``). The order number is worked out here, as ecommerce numbers orders:
``<ECOMMERCE_ORDER_PREFIX>-<basket id + ECOMMERCE_ORDER_OFFSET>``.

A checkout answer without ``payment_data`` (a free seat, or an order placed at once) ends the
task with a TypeError or KeyError; a 4xx or 5xx from the API ends it with the API client's
exception. Locust reports both as task exceptions.
"""

import base64
import hashlib
import hmac

from locust import task

from locustfiles.edx2015 import config
from locustfiles.edx2015.api import OrderApi
from locustfiles.edx2015.auto_auth import AutoAuthTasks

NOTIFY_PATH = "/payment/cybersource/notify/"
RECEIPT_NAME = "/api/v2/orders/:id/"


def sign(message: str, secret: str) -> str:
    """CyberSource's signature of ``message``: HMAC-SHA256 keyed with ``secret``, Base64."""
    return base64.b64encode(hmac.new(secret.encode(), message.encode(), hashlib.sha256).digest()).decode()


def signature(fields: dict, secret: str) -> str:
    """The signature of the fields ``signed_field_names`` lists: ``name=value`` pairs joined
    with commas, in the order listed."""
    names = fields["signed_field_names"].split(",")
    return sign(",".join(f"{name}={fields[name]}" for name in names), secret)


def notification(order_number: str, amount: str, secret: str) -> dict:
    """The form CyberSource posts when it accepts a card payment of ``amount`` US dollars for
    ``order_number``. Every field here is signed, signed_field_names too; the signature is not."""
    fields = {
        "decision": "ACCEPT",
        "req_reference_number": order_number,
        "transaction_id": "123456",
        "auth_amount": amount,
        "req_amount": amount,
        "req_tax_amount": "0.00",
        "req_currency": "USD",
        "req_card_number": "xxxxxxxxxxxx1111",
        "req_card_type": "001",  # Visa
        "req_bill_to_forename": "Ed",
        "req_bill_to_surname": "Xavier",
        "req_bill_to_address_line1": "141 Portland Ave.",
        "req_bill_to_address_line2": "9th Floor",
        "req_bill_to_address_city": "Cambridge",
        "req_bill_to_address_postal_code": "02141",
        "req_bill_to_address_state": "MA",
        "req_bill_to_address_country": "US",
    }
    # edX's client signed the fields above only; the order service takes a notification only when
    # it signs signed_field_names too (as CyberSource's own do, issue 28:
    # docs/decisions/0062-a-notification-signs-its-own.md).
    fields["signed_field_names"] = ",".join([*fields, "signed_field_names"])
    fields["signature"] = signature(fields, secret)
    return fields


def order_number(basket_id: int) -> str:
    return f"{config.ECOMMERCE_ORDER_PREFIX}-{basket_id + config.ECOMMERCE_ORDER_OFFSET}"


class CybersourcePaymentTasks(AutoAuthTasks):
    api: OrderApi | None = None

    @task
    def payment_process(self):
        learner = self.auto_auth()
        self.api = OrderApi(
            config.ECOMMERCE_API_URL,
            self.client,
            config.ECOMMERCE_JWT_SECRET_KEY,
            config.ECOMMERCE_JWT_ISSUER,
            learner.username,
            learner.email,
        )
        self.api.get("payment", "processors")  # the payment page shows a button per processor
        number = self.pay()
        self.api.get("orders", number, name=RECEIPT_NAME)  # the receipt page

    def pay(self) -> str:
        """Check out with CyberSource and send its notification; the order number."""
        basket = self.api.post(
            "baskets",
            body={
                "products": [{"sku": config.PAID_SKU}],
                "checkout": True,
                "payment_processor_name": "cybersource",
            },
        )
        basket_id, amount = basket["id"], basket["payment_data"]["payment_form_data"]["amount"]
        form = notification(order_number(basket_id), amount, config.CYBERSOURCE_SECRET_KEY)
        # Not an API call: no token is needed, though the session's still goes with it.
        self.client.post(
            f"{config.ECOMMERCE_SERVICE_URL}{NOTIFY_PATH}",
            data=form,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        return form["req_reference_number"]
