"""Testing the deployment: the simulated cluster (make cluster-test, scripts/cluster.sh) and a
fresh machine (make fresh-test, scripts/fresh-test.sh)."""

from common.environment.model import Section, Variable

SECTION = Section(
    "The simulated cluster and a fresh machine",
    (
        Variable(
            "CLUSTER_SUBNET",
            "10.213.1.0/24",
            "str",
            "`make cluster-test`: the hosts' private /24 on the bridge osbr0 (no route out)",
            shell=True,
        ),
        Variable(
            "CLUSTER_DIR",
            "{VAR_DIR}/cluster",
            "str",
            "`make cluster-test`: each host's /srv, the SSH keys, the wheelhouse, the logs",
            shell=True,
        ),
        Variable(
            "CLUSTER_FORKS",
            "4",
            "int",
            "`make cluster-test`: ansible-playbook --forks (the hosts share this machine's cores)",
            shell=True,
        ),
        Variable(
            "CLUSTER_WHEELHOUSE_PORT",
            "18765",
            "int",
            "`make cluster-test`: port on the bridge's address where the hosts' pip finds the wheels",
            shell=True,
        ),
        Variable(
            "FRESH_DIR",
            "{VAR_DIR}/fresh",
            "str",
            "`make fresh-test`: the cached debootstrap base, the run's copy of it and its phase logs",
            shell=True,
        ),
        Variable(
            "FRESH_MIRROR",
            None,
            "str",
            "`make fresh-test`: the Debian mirror debootstrap uses",
            shown="this machine's apt mirror",
        ),
        Variable("FRESH_LMS_PORT", "41000", "int", "`make fresh-test`: its lms_stub port", shell=True),
        Variable("FRESH_ECOMMERCE_PORT", "41130", "int", "`make fresh-test`: its ecommerce port", shell=True),
        Variable(
            "FRESH_LOCUST_PORT", "41089", "int", "`make fresh-test`: its Locust web UI port", shell=True
        ),
        Variable("FRESH_MYSQL_PORT", "41306", "int", "`make fresh-test`: its MariaDB port", shell=True),
    ),
)
