"""Django's MySQL backend without a pool (DB_POOL=off: a new connection per request), with
commits counted in the request's timing like the pooled backend's."""

from django.db.backends.mysql import base as mysql

from common.timing import TimedCommits


class DatabaseWrapper(TimedCommits, mysql.DatabaseWrapper):
    pass
