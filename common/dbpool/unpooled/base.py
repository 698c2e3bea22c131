"""Django's MySQL backend without a pool (DB_POOL=off: a new connection per request), with
commits counted in the request's timing and transactions made like the pooled backend's."""

from django.db.backends.mysql import base as mysql

from common.dbpool.server_facts import ServerFactsOnce
from common.dbpool.transactions import ExplicitTransactions
from common.timing import TimedCommits


class DatabaseWrapper(ServerFactsOnce, ExplicitTransactions, TimedCommits, mysql.DatabaseWrapper):
    pass
