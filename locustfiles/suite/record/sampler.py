"""What the servers did during each step: CPU and memory of every process of the stack, the
whole machine's CPU (/proc/stat), and MariaDB's own counters; at the end, the SQL statements
that cost the most time and those that used no index (performance_schema digests).

Processes are found through the stack's pid files (var/run): each gunicorn master with its
workers, the rollup loop, and mariadbd. Where the services run on other hosts (READINGS_HOSTS
names each host's readings agent, common/hostreadings.py), every snapshot asks each host's agent
instead, at once: the groups are summed over the hosts they run on, and each host's own figures
are kept beside them (``hosts``).
"""

import os
import time
from pathlib import Path

import psutil
import pymysql

from common import worker_counts
from common.environment import get
from common.hostreadings import SERVICE_GROUPS, machine_busy_seconds
from common.monitor_account import mysql_connect
from locustfiles.suite.record.digests import digest_report
from locustfiles.suite.record.hosts import host_percent, read_hosts

GROUPS = {  # name: (pid file under VAR_DIR, with children)
    "ecommerce": ("run/ecommerce.pid", True),
    "lms_stub": ("run/lms_stub.pid", True),
    "rollup": ("run/rollup.pid", False),
    "mariadb": ("mysql/mysqld.pid", False),
}
COUNTERS = (
    "Com_commit",
    "Innodb_row_lock_waits",
    "Innodb_row_lock_time",
    "Connections",
    "Slow_queries",
    "Questions",
)
GAUGES = ("Threads_connected",)


def _grown(before: int | None, after: int | None) -> int | None:
    """What a worker's count grew by; None unless read at both ends."""
    return None if before is None or after is None else max(after - before, 0)


class ServerSampler:
    def __init__(self, var_dir: Path, databases: tuple[str, ...], hosts: dict[str, str] | None = None):
        self.var_dir = Path(var_dir)
        self.mysql_dir = Path(get("MYSQL_DIR", {**os.environ, "VAR_DIR": str(self.var_dir)}))
        self.databases = databases
        self.hosts = hosts or {}  # READINGS_HOSTS: the hosts' agents instead of local pid files
        self.timeout = get("READINGS_TIMEOUT")
        self._conn = None
        self._peak_rss: dict[str, int] = {}
        self._peak_host_rss: dict[str, dict[str, int]] = {}

    # --- processes ------------------------------------------------------------------------

    def _pidfile(self, relative: str) -> Path:
        if relative.startswith("mysql/"):
            return self.mysql_dir / relative.removeprefix("mysql/")
        return self.var_dir / relative

    def processes(self) -> dict[str, list[psutil.Process]]:
        found = {}
        for group, (relative, children) in GROUPS.items():
            try:
                master = psutil.Process(int(self._pidfile(relative).read_text().strip()))
                found[group] = [master, *(master.children() if children else [])]
            except (OSError, ValueError, psutil.Error):
                found[group] = []
        return found

    def snapshot(self) -> dict:
        if self.hosts:
            return self._remote_snapshot()
        cpu: dict[str, dict[int, float]] = {}  # CPU seconds by group and pid
        rss: dict[str, int] = {}  # bytes by group
        workers: dict[str, list[int]] = {}  # a gunicorn group's worker pids
        requests: dict[str, dict[int, int | None]] = {}  # each worker's requests (None: unread)
        for group, processes in self.processes().items():
            cpu[group], rss[group] = {}, 0
            if GROUPS[group][1]:  # a gunicorn master's children: its workers
                workers[group] = [process.pid for process in processes[1:]]
                counts = worker_counts.folder(self.var_dir, group)
                requests[group] = {pid: worker_counts.read(counts, pid) for pid in workers[group]}
            for process in processes:
                try:
                    times = process.cpu_times()
                    cpu[group][process.pid] = times.user + times.system
                    rss[group] += process.memory_info().rss
                except psutil.Error:
                    continue
            self._peak_rss[group] = max(self._peak_rss.get(group, 0), rss[group])
        return {
            "time": time.monotonic(),
            "cpu": cpu,
            "machine": machine_busy_seconds(),
            "rss": rss,
            "workers": workers,
            "requests": requests,
            "status": self.status(),
        }

    def _remote_snapshot(self) -> dict:
        """The hosts' readings: each service group's processes over every host (pids as
        "host:pid"), its memory summed over them, and each kernel's busy time once (hosts
        simulated on one machine share a kernel: its boot id)."""
        hosts = read_hosts(self.hosts, self.timeout)
        cpu: dict[str, dict] = {group: {} for group in SERVICE_GROUPS}
        rss = dict.fromkeys(SERVICE_GROUPS, 0)
        kernels: dict[str, float] = {}
        cores: dict[str, int] = {}
        for name, found in hosts.items():
            if "error" in found:
                continue
            peaks = self._peak_host_rss.setdefault(name, {})
            for group, figures in found["groups"].items():
                peaks[group] = max(peaks.get(group, 0), figures["rss_bytes"])
                if group in cpu:
                    cpu[group].update({f"{name}:{pid}": s for pid, s in figures["cpu"].items()})
                    rss[group] += figures["rss_bytes"]
            if found.get("machine_busy_seconds") is not None:
                kernels.setdefault(found.get("boot_id") or name, found["machine_busy_seconds"])
                cores.setdefault(found.get("boot_id") or name, found.get("cores") or 0)
        # A group no host runs (no load balancer) is not read, rather than read as idle.
        cpu = {group: pids for group, pids in cpu.items() if pids}
        for group in cpu:
            self._peak_rss[group] = max(self._peak_rss.get(group, 0), rss[group])
        return {
            "time": time.monotonic(),
            "cpu": cpu,
            "machine": None,
            "kernels": kernels,
            "cores": sum(cores.values()),
            "rss": {group: rss[group] for group in cpu},
            "status": self.status(),
            "hosts": hosts,
        }

    def _host_readings(self, before: dict, after: dict) -> dict:
        """Each host's own figures for the step: CPU % of each of its groups (over the seconds
        its own clock counted between the readings), their peak RSS, its machine's CPU %."""
        out = {}
        for name, now in after["hosts"].items():
            then = before.get("hosts", {}).get(name, {})
            peaks = self._peak_host_rss.pop(name, {})
            if "error" in now or "error" in then or not then:
                out[name] = {
                    "answered": False,
                    "error": now.get("error") or then.get("error") or "no earlier reading",
                }
                continue
            seconds = max(now["monotonic"] - then["monotonic"], 1e-6)
            cpu = host_percent(
                {g: f["cpu"] for g, f in then["groups"].items()},
                {g: f["cpu"] for g, f in now["groups"].items()},
                seconds,
            )
            machine = None
            if now.get("machine_busy_seconds") is not None and then.get("machine_busy_seconds") is not None:
                machine = round(
                    100 * max(now["machine_busy_seconds"] - then["machine_busy_seconds"], 0.0) / seconds, 1
                )
            out[name] = {
                "answered": True,
                "reading_seconds": round(seconds, 3),
                "cpu_percent": cpu,
                "rss_mb": {
                    g: round(peaks.get(g, f["rss_bytes"]) / 2**20, 1) for g, f in now["groups"].items()
                },
                "machine_cpu_percent": machine,
                "cores": now.get("cores"),
                "notes": now.get("notes") or [],
            }
        return out

    def sample_peak(self) -> None:
        """Called every few seconds between snapshots, for the peak memory of each group."""
        self.snapshot()

    def reading(self, before: dict, after: dict) -> dict:
        """CPU % (of one core) and peak RSS of each group, the machine's CPU % (every core's busy
        time, also in % of one core: 200 % = two cores busy), MariaDB counter deltas, between
        two snapshots, and the seconds between them. CPU of a process that is gone (a recycled
        worker) counts until its last snapshot; a new process counts from its start."""
        wall = max(after["time"] - before["time"], 1e-6)
        cpu = {}
        for group, now in after["cpu"].items():
            then = before["cpu"].get(group, {})
            used = sum(seconds - then.get(pid, 0.0) for pid, seconds in now.items())
            cpu[group] = round(100 * max(used, 0.0) / wall, 1)
        machine = None
        if before.get("machine") is not None and after.get("machine") is not None:
            machine = round(100 * max(after["machine"] - before["machine"], 0.0) / wall, 1)
        elif after.get("kernels") and set(after["kernels"]) == set(before.get("kernels") or ()):
            # Every kernel read at both ends (a host that stopped answering leaves it unknown).
            busy = sum(after["kernels"][k] - before["kernels"][k] for k in after["kernels"])
            machine = round(100 * max(busy, 0.0) / wall, 1)
        peak = {group: round(rss / 2**20, 1) for group, rss in self._peak_rss.items()}
        per_worker, per_worker_requests = self._per_worker(before, after, wall)
        self._peak_rss = {}
        deltas = {name: after["status"][name] - before["status"][name] for name in COUNTERS}
        levels = {name: after["status"][name] for name in GAUGES}
        # Processes of a group that were gone at the end of the step: recycled or crashed workers.
        replaced = {
            group: len(set(before["cpu"].get(group, {})) - set(now)) for group, now in after["cpu"].items()
        }
        found = {
            "cpu_percent": cpu,
            "machine_cpu_percent": machine,
            "reading_seconds": round(wall, 3),
            "rss_mb": peak,
            "db": {**deltas, **levels},  # both, as before; the two below say which is which
            "db_deltas": deltas,  # changes during the step
            "db_levels": levels,  # the value at the step's end
            "processes_replaced": replaced,
        }
        if any(per_worker.values()):
            found["worker_cpu_percent"] = per_worker
        if any(any(n is not None for n in each) for each in per_worker_requests.values()):
            found["worker_requests"] = per_worker_requests
        if "hosts" in after:
            found["hosts"] = self._host_readings(before, after)
            found["kernels"] = len(after.get("kernels") or ())
            found["machine_cores"] = after.get("cores") or None  # of every kernel read
        return found

    @staticmethod
    def _per_worker(before: dict, after: dict, wall: float) -> tuple[dict, dict]:
        """How evenly each service's workers took the step's load (issue 29): each worker's CPU
        (% of a core) and the requests it took, busiest (by CPU) first, in the same order. A
        worker that started or ended within the step is left out; a count not read is None."""
        cpu, requests = {}, {}
        for group, pids in (after.get("workers") or {}).items():
            was, now = before["cpu"].get(group, {}), after["cpu"].get(group, {})
            counts = [(reading.get("requests") or {}).get(group, {}) for reading in (before, after)]
            rows = sorted(
                (
                    (
                        round(100 * max(now[pid] - was[pid], 0.0) / wall, 1),
                        _grown(counts[0].get(pid), counts[1].get(pid)),
                    )
                    for pid in pids
                    if pid in now and pid in was
                ),
                key=lambda row: row[0],
                reverse=True,
            )
            cpu[group], requests[group] = [row[0] for row in rows], [row[1] for row in rows]
        return cpu, requests

    # --- MariaDB --------------------------------------------------------------------------

    def _fetch(self, sql: str, params=()) -> list[tuple]:
        """The rows of one statement. The connection is taken out of the sampler while it is
        in use: the step watcher and the end of a run may read at once (each then uses a
        connection of its own), and a read cut short (the watcher killed mid-statement, or a
        MariaDB error) leaves no half-read connection behind for the next one."""
        conn, self._conn = self._conn, None
        if conn is None:
            conn = mysql_connect()
        with conn.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        if self._conn is None:
            self._conn = conn
        else:
            conn.close()
        return rows

    def status(self) -> dict[str, int]:
        try:
            values = dict(self._fetch("SHOW GLOBAL STATUS"))
        except pymysql.Error:
            return {name: 0 for name in (*COUNTERS, *GAUGES)}
        return {name: int(values.get(name, 0)) for name in (*COUNTERS, *GAUGES)}

    def database_size_mb(self) -> float:
        """The stack's databases on disk: their tablespace files' allocated size. (The table
        statistics' data and index lengths move only when InnoDB recalculates them, after a
        tenth of a table changed: hours of a soak on a preloaded database.)"""
        return round(sum(sizes[3] for sizes in self.table_sizes(0).values()), 1)

    def table_sizes(self, min_mb: float = 1.0) -> dict[str, list]:
        """ "database.table" -> [rows, data MB, index MB, file MB] for the stack's tables whose
        file takes at least ``min_mb``. The file size is exact; rows are InnoDB's running
        estimate, data and index its statistics (see database_size_mb)."""
        placeholders = ", ".join(["%s"] * len(self.databases))
        found = self._fetch(
            "SELECT t.table_schema, t.table_name, t.table_rows, t.data_length, t.index_length, "
            "s.allocated_size FROM information_schema.tables AS t "
            "JOIN information_schema.INNODB_SYS_TABLESPACES AS s "
            "ON s.name = CONCAT(t.table_schema, '/', t.table_name) "
            f"WHERE t.table_schema IN ({placeholders}) AND s.allocated_size >= %s",
            (*self.databases, min_mb * 2**20),
        )
        return {
            f"{schema}.{name}": [
                int(rows or 0),
                round(data / 2**20, 1),
                round(index / 2**20, 1),
                round(allocated / 2**20, 1),
            ]
            for schema, name, rows, data, index, allocated in found
        }

    def slow_query_seconds(self) -> float | None:
        """MariaDB's long_query_time: what Slow_queries counts as slow."""
        try:
            return float(self._fetch("SELECT @@GLOBAL.long_query_time")[0][0])
        except pymysql.Error:
            return None

    def digests(self) -> dict[str, dict]:
        """performance_schema's statement digests of the stack's databases (cumulative)."""
        placeholders = ", ".join(["%s"] * len(self.databases))
        try:
            rows = self._fetch(
                "SELECT SCHEMA_NAME, DIGEST, DIGEST_TEXT, COUNT_STAR, SUM_TIMER_WAIT, "
                "SUM_NO_INDEX_USED, SUM_NO_GOOD_INDEX_USED, SUM_ROWS_EXAMINED "
                "FROM performance_schema.events_statements_summary_by_digest "
                f"WHERE SCHEMA_NAME IN ({placeholders})",
                self.databases,
            )
        except pymysql.Error:  # MariaDB may be restarting: the next read connects anew
            return {}
        return {
            f"{schema}:{digest}": {
                "schema": schema,
                "text": text,
                "count": int(count),
                "time_ms": int(timer) / 1e9,  # picoseconds
                "no_index": int(no_index),
                "no_good_index": int(no_good),
                "rows_examined": int(examined),
            }
            for schema, digest, text, count, timer, no_index, no_good, examined in rows
        }

    def statements(self, before: dict[str, dict]) -> dict:
        """The statements run since the digests ``before`` (record/digests.py's report; none
        without them), and what MariaDB counts as slow."""
        found = digest_report(before, self.digests()) if before else {}
        return {**found, "slow_query_seconds": self.slow_query_seconds()}

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
