"""The cluster of `make cluster-test`: the m3 pair's eight hosts simulated on this machine, each a
network namespace on the bridge osbr0 with its own address, hostname, /srv, /tmp and /etc/hosts,
held by its own sshd (``up``); deployed by ansible-playbook over SSH, looked at and acted on
(``commands``); torn down with the check that nothing of it is left (``down``). ``hosts`` is its
table of hosts, addresses and folders, ``prepare`` readies this machine for them (packages,
wheelhouse, service users, keys, the private CA), and ``machine`` is this machine as the cluster
acts on it (the programs it runs, the processes it finds), the seam the unit tests replace.
scripts/cluster.sh only calls it:

    python3 -P -m stack.cluster up|deploy|down|status|exec|hosts|load|run|test

Standard library and common.environment only, as the rest of stack/: the system python3 runs it
before `up` has run scripts/bootstrap.sh (docs/decisions/0099-the-cluster-is-a-python-package.md).
"""
