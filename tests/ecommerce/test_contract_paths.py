"""Every order-service path of the wire contract (common.contract.paths) is routed here."""

import pytest
from django.urls import resolve

from common.contract import paths


@pytest.mark.parametrize(
    "path, route",
    [
        (paths.BASKETS, "baskets"),
        (paths.ORDERS, "orders"),
        (paths.order("EDX-100001"), "order"),
        (paths.order_fulfilment("EDX-100001"), "order-fulfill"),
        (paths.HEALTH, "health"),
    ],
)
def test_the_order_service_routes_the_contract_path(path, route):
    assert resolve(path).url_name == route


def test_an_order_number_stays_one_path_segment():
    assert paths.order("a/../b?c#d") == "/api/v2/orders/a%2F..%2Fb%3Fc%23d/"


@pytest.mark.parametrize("number", ["", ".", "..", "%70", "100%"])
def test_a_number_no_segment_can_carry_makes_no_path(number):
    # Behind the balancer an empty or dot segment is removed (another path), and a "%" escaped
    # is refused (a second decoding would read it).
    with pytest.raises(ValueError):
        paths.order(number)
