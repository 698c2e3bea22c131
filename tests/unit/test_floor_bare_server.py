"""The bare handler (floor/server.py, floor/bare.py, floor/canned.py): the service's own gunicorn
settings, as its gunicorn.conf.py computes them, with one worker answering canned answers; it
starts under gunicorn, answers as the real endpoint did, and stops by its pid."""

import os

import psutil
import pytest

from common import http_client
from common.environment import ROOT
from floor import bare
from floor.canned import Answer
from floor.server import SERVICES, BareServer

# What makes a bare handler: the rest is the service's.
OWN = {"bind", "workers", "wsgi_app", "proc_name", "post_worker_init", "errorlog"}


@pytest.mark.parametrize("service", ["lms_stub", "ecommerce"])
def test_the_bare_handler_takes_every_gunicorn_setting_of_the_service_but_its_own(
    service, tmp_path, monkeypatch
):
    monkeypatch.setenv("VAR_DIR", str(tmp_path))
    # lms_stub's gunicorn.conf.py sets it for its own process: here it is put back afterwards.
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", os.environ.get("DJANGO_SETTINGS_MODULE", "settings.test"))
    config = str(ROOT / SERVICES[service].config)
    theirs = bare.service_settings(config)
    env = {bare.SERVICE_VARIABLE: service, bare.CONFIG_VARIABLE: config, bare.BIND_VARIABLE: "127.0.0.1:1"}
    ours = bare.bare_config(env)
    assert {"worker_class", "http_parser", "keepalive", "worker_connections", "pre_request"} <= set(theirs)
    assert {name: value for name, value in ours.items() if name not in OWN} == {
        name: value for name, value in theirs.items() if name not in OWN
    }
    assert ours["workers"] == 1 and ours["wsgi_app"] == "floor.canned:application"
    assert ours["proc_name"] == f"floor-{service}" and ours["errorlog"].startswith(str(tmp_path))


def test_the_bare_handler_answers_under_gunicorn_as_the_endpoint_did_and_stops_by_its_pid(tmp_path):
    answer = Answer(201, (("Content-Type", "application/json"), ("Vary", "Cookie")), b'{"order": "OSCR-1"}')
    server = BareServer("lms_stub", {"POST /api/commerce/v0/baskets/": answer}, tmp_path).start()
    try:
        processes = server.processes()
        assert len(processes) == 2  # the master and its one worker
        reply = http_client.post(
            server.url + "/api/commerce/v0/baskets/", json={"course_id": "c"}, timeout=10
        )
        assert reply.status_code == 201 and reply.content == answer.body
        headers = {name.lower(): value for name, value in reply.headers.items()}
        assert headers["vary"] == "Cookie" and headers["content-type"] == "application/json"
        assert headers["server"] == "gunicorn"
        assert headers["transfer-encoding"] == "chunked"  # no Content-Length canned: as Django's answers
        assert http_client.get(server.url + "/nothing/", timeout=10).status_code == 404
        assert server.cpu_seconds() > 0
    finally:
        http_client.close_all()
        server.stop()
    assert not any(process.is_running() and process.status() != psutil.STATUS_ZOMBIE for process in processes)
