"""Monitoring: New Relic, and the readings agents the load suite asks for CPU and memory."""

from common.environment.model import Section, Variable

SECTION = Section(
    "Monitoring",
    (
        Variable(
            "NEW_RELIC_LICENSE_KEY",
            None,
            "str",
            "set (or NEW_RELIC_CONFIG_FILE): `make up` starts both services under `newrelic-admin "
            "run-program`",
            shown="none",
        ),
        Variable(
            "NEW_RELIC_CONFIG_FILE",
            None,
            "str",
            "the New Relic agent's configuration file",
            shown="settings/newrelic.ini where the agent runs",
        ),
        Variable(
            "NEW_RELIC_DEVELOPER_MODE",
            None,
            "bool",
            "the agent reports to its built-in fake collector: offline, nothing leaves the host (read "
            "by the agent itself)",
            shown="false",
        ),
        Variable(
            "NEW_RELIC_APP_NAME",
            "orderservice",
            "str",
            "New Relic name prefix: `<prefix>-<service>`",
            shell=True,
        ),
        Variable(
            "READINGS_HOSTS",
            None,
            "list",
            "the load suite reads CPU and memory from these hosts' readings agents "
            "(common/hostreadings.py), `name=http://address:port` each, comma-separated; unset: this "
            "machine's processes, through the stack's pid files",
            shown="none",
        ),
        Variable(
            "READINGS_TIMEOUT", "2", "float", "seconds the load suite waits for a host's readings agent"
        ),
        Variable(
            "READINGS_HOST_NAME",
            None,
            "str",
            "this host's name in READINGS_HOSTS: each Locust process reports it with its CPU",
            shown="the machine's host name",
        ),
    ),
)
