"""A method an endpoint does not take is a 405 in the JSON error shape, with Allow. Django's
require_http_methods answered an empty text/html 405, and the CSRF check a 403 before it."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "method, path, allowed",
    [
        ("put", "/auto_auth", "GET, POST"),
        ("delete", "/auto_auth", "GET, POST"),
        ("get", "/api/commerce/v0/baskets/", "POST"),
        ("patch", "/api/enrollment/v1/enrollment", "GET, POST"),
        ("post", "/api/faults/", "GET, PUT, DELETE"),
        ("post", "/health/", "GET"),
        ("delete", "/health/", "GET"),
        ("post", "/api/schema/", "GET"),
    ],
)
def test_a_method_not_taken_is_a_json_405(csrf_client, key, method, path, allowed):
    response = getattr(csrf_client, method)(path, **key)
    assert response.status_code == 405, response.content
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == "method_not_allowed"
    assert response["Allow"] == allowed


def test_the_order_read_back_takes_get_only(client):
    response = client.get("/auto_auth")
    browser_cookies = response.cookies
    client.cookies.update(browser_cookies)
    response = client.put("/api/commerce/v1/orders/100001/")
    assert response.status_code == 405
    assert response.json()["error"] == "method_not_allowed"
