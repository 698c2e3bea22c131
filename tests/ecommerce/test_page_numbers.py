"""Issue 28: a malformed page number (``?page=²``, ``abc``, ``-1``, ``0``, thousands of digits)
on any list a staff member pages through is a 404, never a server error; on the API, a malformed
cursor is a 404 and a malformed page size a 400, in the one JSON error shape."""

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver

from ecommerce.dashboard.urls import dashboard_urls
from tests.ecommerce.helpers import row_counts

pytestmark = pytest.mark.django_db

BAD_PAGES = ["²", "abc", "-1", "0", "1.5", "9" * 5000, "٣"]


def dashboard_lists() -> list[str]:
    """Every dashboard page whose URL takes no argument (the lists, the forms, the reports)."""
    found = []

    def walk(patterns, prefix):
        for pattern in patterns:
            route = str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + route)
            elif isinstance(pattern, URLPattern) and not re.search(r"[<(\\]", route):
                found.append(prefix + route.lstrip("^").rstrip("$"))

    walk(dashboard_urls()[0], "/dashboard/")
    return sorted(set(found) - {"/dashboard/logout/", "/dashboard/login/"})


@pytest.fixture
def dashboard(django_user_model) -> Client:
    staff = django_user_model.objects.create(username="pager", is_staff=True, is_superuser=True)
    client = Client(HTTP_HOST="127.0.0.1", raise_request_exception=False)  # a 500 is an answer here
    client.force_login(staff)
    return client


def test_every_dashboard_page_refuses_a_malformed_page_number(dashboard):
    pages = dashboard_lists()
    assert {"/dashboard/orders/", "/dashboard/users/", "/dashboard/catalogue/"} <= set(pages)
    wrong = {}
    for path in pages:
        for page in BAD_PAGES:
            status = dashboard.get(path, {"page": page}).status_code
            if status != 404:
                wrong[(path, page[:10])] = status
    assert wrong == {}
    assert dashboard.get("/dashboard/orders/", {"page": "1"}).status_code == 200


@pytest.mark.parametrize("path", ["/dashboard/orders/", "/dashboard/users/"])
@pytest.mark.parametrize("direction", ["before", "after"])
@pytest.mark.parametrize("cursor", ["²", "٣", "abc", "-1", "9" * 19, "9" * 5000])
def test_a_malformed_keyset_cursor_is_a_404(dashboard, path, direction, cursor):
    assert dashboard.get(path, {direction: cursor}).status_code == 404


@pytest.mark.parametrize("page", ["1", "2", "17"])
def test_a_well_formed_page_number_is_served(dashboard, page):
    assert dashboard.get("/dashboard/users/", {"page": page}).status_code == 200


@pytest.mark.parametrize("cursor", ["²", "abc", "-1", "9" * 5000, "cD3Csg", "cD0tMQ=="])
def test_a_malformed_api_cursor_is_a_json_404(api, cursor):
    before = row_counts()
    response = api.get(f"/api/v2/orders/?cursor={cursor}", "pager_learner")
    assert response.status_code == 404, response.content
    assert response.json()["error"] == "not_found"
    assert row_counts() == before


@pytest.mark.parametrize("size", ["²", "abc", "-1", "0", "1.5", ""])
def test_a_malformed_api_page_size_is_a_json_400(api, size):
    response = api.get(f"/api/v2/orders/?page_size={size}", "pager_learner")
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "invalid_request"


def test_a_huge_api_page_size_is_the_largest_page(api):
    assert api.get("/api/v2/orders/?page_size=" + "9" * 5000, "pager_learner").status_code == 200
