"""The pool's reuse rules with stand-in connections (the real pool under real gunicorn workers
and a real MariaDB is tested in tests/integration/test_pool.py)."""

from common.dbpool.pool import MySQLConnectionPool


class Server:
    """Stands for MariaDB: a restart kills every connection opened before it."""

    def __init__(self):
        self.generation = 0
        self.opened = 0

    def connect(self):
        self.opened += 1
        return Connection(self)


class Connection:
    def __init__(self, server: Server):
        self.server, self.generation = server, server.generation
        self.pings = 0

    @property
    def alive(self) -> bool:
        return self.generation == self.server.generation

    def ping(self):
        self.pings += 1
        if not self.alive:
            raise OSError("MySQL server has gone away")

    def close(self):
        pass


def busy_pool(server: Server, size: int = 4) -> MySQLConnectionPool:
    # ping_after is long: a busy service's connections are never idle long enough to be pinged.
    pool = MySQLConnectionPool(server.connect, maxsize=size, timeout=1, ping_after=3600)
    pool.warm_up(size)
    return pool


def test_a_busy_pool_reuses_connections_without_pinging():
    server = Server()
    pool = busy_pool(server)
    conn = pool.get()
    assert conn.pings == 0
    pool.put(conn)
    assert server.opened == 4


def test_after_a_restart_one_checkout_fails_then_the_idle_connections_are_checked():
    server = Server()
    pool = busy_pool(server)
    server.generation += 1  # MariaDB restarted: all four pooled connections are dead

    first = pool.get()
    assert not first.alive  # not pinged: the request using it fails (a 503) ...
    pool.discard(first, broken=True)  # ... and Django discards it as broken

    handed_out = [pool.get() for _ in range(4)]
    assert all(conn.alive for conn in handed_out)  # the dead ones were pinged and replaced
    assert server.opened == 4 + 4


def test_a_connection_closed_mid_transaction_does_not_make_the_others_suspect():
    server = Server()
    pool = busy_pool(server)
    conn = pool.get()
    pool.discard(conn)  # not broken: closed inside a transaction
    again = pool.get()
    assert again.pings == 0
