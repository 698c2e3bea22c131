"""Provenance: every field present and typed, the services' effective settings (what was set,
else the services' own defaults), and "unknown" outside a git checkout."""

import multiprocessing
import socket

import pytest

from locustfiles.suite import provenance
from settings import gunicorn_common
from settings._env import POOL_ENGINES, mysql_database


@pytest.fixture
def unreachable_mariadb(monkeypatch):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("MYSQL_PORT", str(port))


def collect(env=None, running=None):
    return provenance.collect(
        env or {},
        running or {},
        profile="ramp",
        started_from="web UI",
        host="http://127.0.0.1:18000",
        users=3,
        spawn_rate=1.5,
        locust_workers=2,
    )


def test_every_field_is_present_and_typed(unreachable_mariadb):
    found = collect()
    assert set(found) == {"git", "host", "versions", "services", "load"}
    assert len(found["git"]["commit"]) == 40 and isinstance(found["git"]["dirty"], bool)
    host = found["host"]
    assert set(host) == {"hostname", "cores", "memory_gb", "cpu_model", "os"}
    assert isinstance(host["cores"], int) and host["cores"] >= 1
    assert isinstance(host["memory_gb"], float) and host["memory_gb"] > 0
    assert all(isinstance(host[k], str) and host[k] for k in ("hostname", "cpu_model", "os"))
    versions = found["versions"]
    assert set(versions) == {"python", "django", "oscar", "drf", "locust", "mariadb", "gunicorn", "gevent"}
    assert versions["mariadb"] is None  # not reachable
    assert all(isinstance(v, str) and v[0].isdigit() for k, v in versions.items() if k != "mariadb")
    assert found["load"] == {
        "profile": "ramp",
        "started_from": "web UI",
        "host": "http://127.0.0.1:18000",
        "users": 3,
        "spawn_rate": 1.5,
        "think_time": {"min_seconds": 3.0, "max_seconds": 5.0},
        "weights": {"buy": 10, "read": 1},
        "courses": 100,
        "locust_workers": 2,
    }


def test_the_services_settings_are_the_running_ones_else_the_defaults(unreachable_mariadb):
    running = {
        "ECOMMERCE_WORKERS": "3",
        "ECOMMERCE_WORKER_CLASS": "sync",
        "MYSQL_DRIVER": "",
        "DB_POOL_SIZE": "4",
    }
    env = {"MYSQL_DRIVER": "mysqlclient", "LMS_MYSQL_DRIVER": "mysqlclient", "ORDER_COUNTER": "oscar"}
    services = collect(env, running)["services"]
    # MYSQL_DRIVER was empty when the services started: the shell's value now does not count.
    assert services["ecommerce"] == {
        "worker_class": "sync",
        "workers": 3,
        "worker_connections": 100,
        "driver": "pymysql",
        "pool": "geventpool",
        "pool_size": 4,
        "pool_timeout_seconds": 5.0,
    }
    assert services["lms_stub"]["driver"] == "mysqlclient"  # not recorded by the stack: the env
    assert services["lms_stub"]["workers"] == 2 * multiprocessing.cpu_count() + 1
    assert services["order_counter"] == "oscar"


def test_the_defaults_are_the_services_own(monkeypatch, tmp_path):
    for name in (
        "ECOMMERCE_WORKERS",
        "ECOMMERCE_WORKER_CLASS",
        "ECOMMERCE_WORKER_CONNECTIONS",
        "DB_POOL",
        "DB_POOL_SIZE",
        "DB_POOL_TIMEOUT",
        "ECOMMERCE_DB_POOL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VAR_DIR", str(tmp_path))
    gunicorn = gunicorn_common.service_config("ecommerce", "ECOMMERCE", 18130, "gevent")
    database = mysql_database("ECOMMERCE", "ecommerce")
    services = provenance.services({}, {})["ecommerce"]
    assert (services["workers"], services["worker_class"], services["worker_connections"]) == (
        gunicorn["workers"],
        gunicorn["worker_class"],
        gunicorn["worker_connections"],
    )
    assert POOL_ENGINES[services["pool"]] == database["ENGINE"]
    assert services["pool_size"] == database["POOL"]["MAX_CONNECTIONS"]
    assert services["pool_timeout_seconds"] == database["POOL"]["CHECKOUT_TIMEOUT"]


def test_the_load_settings_follow_the_environment():
    assert provenance.load_settings(
        {"WAIT_MIN": "0.5", "WAIT_MAX": "1", "READ_WEIGHT": "3", "CATALOG_COURSES": "7"}
    ) == {
        "think_time": {"min_seconds": 0.5, "max_seconds": 1.0},
        "weights": {"buy": 10, "read": 3},
        "courses": 7,
    }
    assert provenance.load_settings({"COURSES": "1", "CATALOG_COURSES": "7"})["courses"] == 1


def test_outside_a_checkout_the_commit_is_unknown(tmp_path):
    assert provenance.git(tmp_path) == {"commit": "unknown", "dirty": "unknown"}
