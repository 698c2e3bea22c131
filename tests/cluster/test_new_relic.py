"""Item 5: each host's New Relic agents run in developer mode, offline (the built-in fake
collector, as the single-host molecule scenario checks), and report their own host's name: the
audit log the cluster inventory turns on records the connect payload the agent would send."""

import re

import pytest

from tests.cluster.conftest import PREFIX, hosts, on_host

AGENT_HOSTS = {"lms-1": ["lms_stub"], "ecommerce-1": ["ecommerce"], "ecommerce-2": ["ecommerce"]}


@pytest.mark.parametrize("host", sorted(AGENT_HOSTS))
def test_each_agent_reports_to_the_fake_collector(host):
    for service in AGENT_HOSTS[host]:
        # Each service runs as its own user and writes its own agent log, in its log folder.
        log = on_host(host, "cat", f"{PREFIX}/log/{service}/newrelic-agent.log")
        session = rf"NR-Activate-Session/{service} \(cluster\)\) .*Reporting to fake collector"
        assert re.search(session, log), log[-2000:]


def _connect_payloads(audit: str) -> list[str]:
    """The data of every `connect` call in an agent's audit log (one per worker's agent): the
    log holds each call as PARAMS (with its method), HEADERS, DATA (pretty-printed Python)."""
    calls = audit.split("PARAMS: ")[1:]
    return [call.split("DATA: ", 1)[1] for call in calls if "'method': 'connect'" in call.split("\n", 1)[0]]


def _reported(payload: str, key: str) -> set[str]:
    return set(re.findall(rf"^\s*'{key}': '([^']*)',?$", payload, re.MULTILINE))


@pytest.mark.parametrize("host", sorted(AGENT_HOSTS))
def test_each_agent_reports_its_own_host_name(host):
    logs = [f"{PREFIX}/log/{service}/newrelic-audit.log" for service in AGENT_HOSTS[host]]
    audit = "".join(on_host(host, "cat", log) for log in logs)
    payloads = _connect_payloads(audit)
    assert payloads, f"no agent on {host} connected"
    for payload in payloads:
        # The host, the name shown in New Relic's UI and the utilization's host name.
        assert _reported(payload, "host") == {host}, payload[:3000]
        assert _reported(payload, "display_host") == {host}
        assert _reported(payload, "hostname") == {host}


def test_no_agent_runs_where_no_service_does():
    for host in sorted(set(hosts()) - set(AGENT_HOSTS)):
        found = on_host(host, "sh", "-c", f"ls {PREFIX}/log/*/newrelic-audit.log 2>/dev/null || true")
        assert found.strip() == "", host


def test_the_agents_wrap_the_gunicorn_masters_in_developer_mode():
    for host, services in AGENT_HOSTS.items():
        for service in services:
            pid = on_host(host, "supervisorctl", "-c", f"{PREFIX}/etc/supervisord.conf", "pid", service)
            environ = on_host(host, "cat", f"/proc/{pid.strip()}/environ").split("\0")
            assert f"NEW_RELIC_APP_NAME={service} (cluster)" in environ, (host, service)
            assert "NEW_RELIC_DEVELOPER_MODE=true" in environ, (host, service)
