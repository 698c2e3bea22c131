"""The stack on this machine. ``mysql``: the private MariaDB (its datadir, configuration and
accounts by job, the SQL of which is ``accounts``'s), started, stopped and reported on from its
pid file (``processes``). scripts/mysql.sh only calls it:

    python3 -P -m stack.mysql up|down|status|shell|reset

Standard library and common.environment only: the system python3 runs it, before
scripts/bootstrap.sh has made the virtualenv.
"""
