"""Every LMS path of the wire contract (common.contract.paths) is routed by lms_stub."""

import pytest
from django.urls import resolve

from common.contract import paths


@pytest.mark.parametrize(
    "path, route",
    [
        (paths.AUTO_AUTH, "auto_auth"),
        (paths.COMMERCE_BASKETS, "commerce-baskets"),
        (paths.commerce_order("EDX-100001"), "commerce-order"),
        (paths.ENROLLMENT, "enrollment"),
        (paths.HEALTH, "health"),
    ],
)
def test_the_lms_stand_in_routes_the_contract_path(path, route):
    assert resolve(path).url_name == route
