"""The stack on this machine: the private MariaDB (``mysql``: its datadir, configuration, accounts)
and the services under gunicorn with the purchase-counter rollup (``services``), started, stopped
and reported on from their pid files (``processes``); and the simulated hosts of `make
cluster-test` (``cluster``). `make up/down/status/run`, the tests and the load suite reach it
through scripts/stack.sh and scripts/mysql.sh, `make cluster-*` through scripts/cluster.sh, which
only call it:

    python3 -P -m stack up|down|stop|restart|status|settings|urls|staff-password|staff-jwt-secret
    python3 -P -m stack.mysql up|down|status|shell|reset
    python3 -P -m stack.cluster up|deploy|down|status|exec|hosts|load|run|test

Standard library and common.environment only: the system python3 runs it, before
scripts/bootstrap.sh has made the virtualenv (docs/decisions/0088-the-stack-is-a-python-package.md,
docs/decisions/0099-the-cluster-is-a-python-package.md).
"""
