"""Provenance: every field present and typed, the services' settings as the stack recorded
them, and "unknown" outside a git checkout."""

import socket

import pytest

from locustfiles.suite.record import provenance


@pytest.fixture
def unreachable_mariadb(monkeypatch):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("MYSQL_PORT", str(port))


def collect(env=None, running=None, open_model=False):
    return provenance.collect(env or {}, running or {}, open_model=open_model)


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
    # The learners' settings only: who made the load is the summary's, written once there.
    assert found["load"] == {
        "think_time": {"min_seconds": 3.0, "max_seconds": 5.0},
        "weights": {"buy": 50, "pay": 1, "read": 5},
        "courses": 100,
    }


def test_an_open_model_runs_learners_have_no_think_time(unreachable_mariadb):
    """An open model's arrivals come at the rate whatever the users do: its provenance records
    the mix and the courses, and no think time (its run reads none, however set)."""
    found = collect({"WAIT_MIN": "soon"}, open_model=True)["load"]
    assert found == {"weights": {"buy": 50, "pay": 1, "read": 5}, "courses": 100}


def test_the_services_settings_are_those_the_stack_recorded(unreachable_mariadb):
    running = {
        "ECOMMERCE_WORKERS": "3",
        "ECOMMERCE_WORKER_CLASS": "sync",
        "ECOMMERCE_WORKER_CONNECTIONS": "100",
        "ECOMMERCE_MYSQL_DRIVER": "pymysql",
        "ECOMMERCE_DB_POOL": "geventpool",
        "ECOMMERCE_DB_POOL_SIZE": "4",
        "ECOMMERCE_MAX_IN_FLIGHT": "6",
        "ECOMMERCE_ADMISSION": "queue-delay",
        "ECOMMERCE_QUEUE_TARGET_MS": "15",
        "ECOMMERCE_QUEUE_INTERVAL_MS": "100",
        "ECOMMERCE_MAX_REQUESTS": "200000",
        "LMS_MYSQL_DRIVER": "mysqlclient",
        "DB_POOL_TIMEOUT": "5.0",
        "ORDER_COUNTER": "oscar",
        "ECOMMERCE_CPUS": "",
    }
    # The shell's values now do not count: the services run with what they started with.
    services = collect({"ORDER_COUNTER": "events", "ECOMMERCE_WORKERS": "9"}, running)["services"]
    assert services["ecommerce"] == {
        "worker_class": "sync",
        "workers": 3,
        "worker_connections": 100,
        "driver": "pymysql",
        "pool": "geventpool",
        "pool_size": 4,
        "max_in_flight": 6,
        "admission": "queue-delay",
        "queue_target_ms": 15,
        "queue_interval_ms": 100,
        "max_requests": 200000,
    }
    assert services["lms_stub"]["driver"] == "mysqlclient"
    assert services["lms_stub"]["workers"] is None  # not recorded: not guessed
    assert (services["order_counter"], services["pool_timeout_seconds"]) == ("oscar", 5.0)
    assert services["ecommerce_cpus"] == "not pinned"


def test_a_stack_that_recorded_nothing_gives_no_settings(unreachable_mariadb):
    services = collect({"ECOMMERCE_WORKERS": "9"}, {})["services"]
    assert services["ecommerce"]["workers"] is None and services["ecommerce_cpus"] is None


def test_the_load_settings_follow_the_environment():
    assert provenance.load_settings(
        {"WAIT_MIN": "0.5", "WAIT_MAX": "1", "READ_WEIGHT": "3", "CATALOG_COURSES": "7"}, open_model=False
    ) == {
        "think_time": {"min_seconds": 0.5, "max_seconds": 1.0},
        "weights": {"buy": 50, "pay": 1, "read": 3},
        "courses": 7,
    }
    assert provenance.load_settings({"COURSES": "1", "CATALOG_COURSES": "7"}, open_model=True)["courses"] == 1


def test_outside_a_checkout_the_commit_is_unknown(tmp_path):
    assert provenance.git(tmp_path) == {"commit": "unknown", "dirty": "unknown"}


def test_the_commit_is_the_one_the_run_began_on_and_a_change_during_it_is_kept(unreachable_mariadb):
    now = provenance.git(provenance.ROOT)
    began = {"commit": "0" * 40, "dirty": False}
    found = collect_at_start(began)
    # What ran is the start's checkout; the end's differs, so it is kept beside it.
    assert found["git"] == {**began, "changed_during_run": now}
    assert collect_at_start(now)["git"] == now  # nothing changed: nothing added


def collect_at_start(git_at_start):
    return provenance.collect({}, {}, open_model=False, git_at_start=git_at_start)
