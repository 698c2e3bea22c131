"""lms_stub's /health/ answers as ecommerce's does (common.contract.health)."""

import pytest
from django.db import OperationalError

from common import database

pytestmark = pytest.mark.django_db


def test_health_with_its_database_is_ok(client):
    response = client.get("/health/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


def test_health_without_a_database_is_503_in_ecommerces_shape(client, monkeypatch, caplog):
    class NoDatabase:
        def cursor(self):
            raise OperationalError('(2003, "Can\'t connect")')

    monkeypatch.setattr(database, "connections", {"default": NoDatabase()})
    response = client.get("/health/")
    assert response.status_code == 503
    body = response.json()
    assert (body["error"], body["status"], body["database"]) == ("unavailable", "unavailable", "error")
    assert "Can't connect" not in response.content.decode()  # the error stays in the log
    assert "Can't connect" in caplog.text
