"""How many gunicorn workers a service starts when ``<PREFIX>_WORKERS`` is not set: one per core
for gevent workers, 2 x cores + 1 for sync ones (settings/gunicorn_common.py, issue 29)."""

import multiprocessing

import pytest

from settings import gunicorn_common


@pytest.mark.parametrize("cores", [1, 2, 4, 16])
def test_gevent_workers_are_one_per_core_and_sync_ones_two_per_core_and_one(cores):
    assert gunicorn_common.default_workers("gevent", cores) == cores
    assert gunicorn_common.default_workers("sync", cores) == 2 * cores + 1


@pytest.mark.parametrize("service, prefix", [("ecommerce", "ECOMMERCE"), ("lms_stub", "LMS")])
def test_each_service_sizes_by_its_worker_class_unless_told(monkeypatch, tmp_path, service, prefix):
    monkeypatch.setenv("VAR_DIR", str(tmp_path))
    monkeypatch.setattr(multiprocessing, "cpu_count", lambda: 3)
    monkeypatch.delenv(f"{prefix}_WORKERS", raising=False)
    monkeypatch.delenv(f"{prefix}_WORKER_CLASS", raising=False)  # the default: gevent
    assert gunicorn_common.service_config(service, prefix)["workers"] == 3
    monkeypatch.setenv(f"{prefix}_WORKER_CLASS", "sync")
    assert gunicorn_common.service_config(service, prefix)["workers"] == 7
    monkeypatch.setenv(f"{prefix}_WORKERS", "5")
    assert gunicorn_common.service_config(service, prefix)["workers"] == 5
