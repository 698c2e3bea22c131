"""A second site.yml over the deployed cluster, from the same checkout, changes nothing."""

import re

from tests.cluster.conftest import cluster, hosts


def test_a_second_deploy_changes_nothing():
    done = cluster("deploy", timeout=1800)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    recap = dict(re.findall(r"^(\S+)\s+:\s+(ok=.*)$", done.stdout, re.MULTILINE))
    assert set(recap) == set(hosts()), recap
    for host, counts in recap.items():
        assert re.search(r"\bchanged=0\b", counts) and re.search(r"\bfailed=0\b", counts), (host, counts)
