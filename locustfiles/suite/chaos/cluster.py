"""Faults across hosts: an ecommerce host of the pair lost and back, a rolling deploy of a new
release, the LMS host restarted and the balancer restarted, under a steady load through the load
balancer (the table they make: fault_table.py).

As the chaos profile's faults (faults.py), each is a ``Fault`` that causes itself for a while
and ends itself (``inject``, ``undo``), noting what it did in an ``Event``. Unlike those they
act on hosts (a host's supervisord, its network link, an Ansible play), from the machine that
holds them (root there), while the load runs on a Locust host: so a driver here plays them
(``play``), the balancer's stats are read all along (``Watch``), and the table is computed
afterwards from the Locust process's request log (REQUEST_LOG: each request's start, time,
status and whether its body was JSON), the balancer's readings and the suite's audit
(``fault_table.table``). What reaches the hosts is a ``Hosts``: scripts/cluster.sh's in
tests/cluster.

The times, in Unix seconds of one clock (the simulated hosts share the machine's; real hosts
need NTP, as the suite's distributed runs do):

* the fault: ``event.started``, just before it is caused;
* rerouted: the balancer shows the host DOWN (``down_after_s``), and the last request it sent
  the host (``last_routed_after_s``: the last reading whose count of requests sent to it grew);
* back: the fault's undo began (``event.detail["ending"]``), the balancer shows the host UP again
  (``up_again_after_s``) and sends it requests again (``traffic_again_after_s``);
* orders succeed again (every fault, from the request log alone): the answer of the first
  purchase answered 2xx that started after the fault and after the window's last failed request
  (``orders_back_after_s``), and that last failure's answer (``last_failure_after_s``).
"""

import csv
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from locustfiles.suite.chaos.event import Event
from locustfiles.suite.chaos.faults import Fault
from locustfiles.suite.record.balancer import BalancerStats, Unreadable

# How often the balancer's stats are read: the resolution of the reroute times.
WATCH_INTERVAL = 0.2


class Hosts:
    """What the faults pull: commands on a host, a host's link, a rolling deploy."""

    def run(self, host: str, *command: str, timeout: float = 120) -> str:
        """``command``'s output on ``host``; RuntimeError when it fails."""
        raise NotImplementedError

    def set_link(self, host: str, up: bool) -> None:
        """Take ``host``'s network link down, or up again."""
        raise NotImplementedError

    def programs(self, host: str, action: str, names: list[str]) -> str:
        """supervisorctl ``action`` (stop, start, restart) of ``names`` on ``host``."""
        raise NotImplementedError

    def supervisord(self, host: str, running: bool) -> str:
        """``host``'s supervisord shut down (each program stopped, as when the host shuts down)
        and gone; or started as the host starts it at boot, and its programs started."""
        raise NotImplementedError

    def rolling_deploy(self) -> tuple[int, str]:
        """Deploy a new release to the ecommerce hosts, one at a time: (exit code, output)."""
        raise NotImplementedError


@dataclass
class Request:
    start: float  # Unix seconds
    ms: float
    name: str
    ok: bool
    status: int  # 0: no answer
    json: bool  # its body was JSON

    @property
    def end(self) -> float:
        return self.start + self.ms / 1000


def read_requests(paths: list[Path]) -> list[Request]:
    """The request logs (REQUEST_LOG: start, ms, name, ok, status, json), sorted by start."""
    out = []
    for path in paths:
        with open(path, newline="") as handle:
            for row in csv.reader(handle):
                if len(row) < 6:
                    continue  # a line cut short by a process that was killed
                out.append(
                    Request(float(row[0]), float(row[1]), row[2], row[3] == "1", int(row[4]), row[5] == "1")
                )
    return sorted(out, key=lambda r: r.start)


class Watch(threading.Thread):
    """The balancer's servers (status, requests sent to each) read every ``interval`` seconds
    until ``stop``: ``samples`` is [(Unix time, {server: {...}})]; unreadable readings are
    counted in ``errors``."""

    def __init__(self, stats: BalancerStats, interval: float = WATCH_INTERVAL):
        super().__init__(daemon=True)
        self.stats, self.interval = stats, interval
        self.samples: list[tuple[float, dict]] = []
        self.errors: list[str] = []
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            try:
                self.samples.append((time.time(), self.stats.read()))
            except Unreadable as exc:
                self.errors.append(str(exc))
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        self._stop_event.set()
        self.join(5)

    def latest(self, server: str) -> dict:
        return self.samples[-1][1].get(server, {}) if self.samples else {}

    def wait_for(self, predicate, timeout: float) -> float | None:
        """The time of the first reading from now on for which ``predicate(servers)`` holds;
        None after ``timeout`` seconds."""
        seen = len(self.samples)
        deadline = time.time() + timeout
        while time.time() < deadline:
            for moment, servers in self.samples[seen:]:
                if predicate(servers):
                    return moment
            seen = len(self.samples)
            time.sleep(self.interval / 2)
        return None


class HeldFault(Fault[Hosts]):
    """A fault of one host (``victim``): caused, held ``seconds`` from its start, then undone."""

    victim = ""

    def cause(self, hosts: Hosts) -> None:
        raise NotImplementedError

    def inject(self, hosts: Hosts, event: Event, seconds: float) -> None:
        event.started = time.time()
        self.cause(hosts)
        event.detail["caused_in_s"] = round(time.time() - event.started, 2)
        time.sleep(max(0.0, event.started + seconds - time.time()))
        event.detail["ending"] = time.time()
        self.undo(hosts)
        event.ended = time.time()


class HostFault(HeldFault):
    """A fault of one ecommerce host, which the balancer must route around."""

    victim = "ecommerce-2"


class ServicesStopped(HostFault):
    name = "services_stopped"
    title = "ecommerce-2's services stopped, then started"
    programs = ["ecommerce", "ecommerce-rollup"]

    def cause(self, hosts: Hosts) -> None:
        hosts.programs(self.victim, "stop", self.programs)

    def undo(self, hosts: Hosts) -> None:
        hosts.programs(self.victim, "start", self.programs)


class LinkDown(HostFault):
    name = "link_down"
    title = "ecommerce-2's link down, then up"

    def cause(self, hosts: Hosts) -> None:
        hosts.set_link(self.victim, up=False)

    def undo(self, hosts: Hosts) -> None:
        hosts.set_link(self.victim, up=True)


class RollingDeploy(Fault[Hosts]):
    """A new release across the pair, one host drained at a time (ecommerce.yml, serial: 1)."""

    name = "rolling_deploy"
    title = "a rolling deploy of a new release across the pair"

    def inject(self, hosts: Hosts, event: Event, seconds: float) -> None:
        event.started = time.time()
        code, output = hosts.rolling_deploy()
        event.ended = time.time()
        event.detail["exit_code"] = code
        event.detail["recap"] = [line for line in output.splitlines() if " : ok=" in line]
        if code != 0:
            event.error = f"the rolling deploy failed ({code}): {output[-1500:]}"


class HostRestarted(HeldFault):
    """lms-1 restarted: its supervisord shut down (gunicorn finishes the requests in flight),
    the host down for the fault's seconds, then supervisord started as at boot (roles/common's
    @reboot job). A restart of the whole supervisord rather than of its programs: it is what a
    reboot does to the host (every program, not a chosen few) and just as easy to cause."""

    name = "lms_restarted"
    title = "lms-1 restarted (its supervisord shut down, started again)"
    victim = "lms-1"

    def cause(self, hosts: Hosts) -> None:
        hosts.supervisord(self.victim, running=False)

    def undo(self, hosts: Hosts) -> None:
        hosts.supervisord(self.victim, running=True)


class BalancerRestarted(Fault[Hosts]):
    """lb-1's HAProxy restarted by its supervisord (supervisorctl restart, as after an upgrade):
    a soft stop (SIGUSR1: listeners closed, requests in flight finished), then a new master."""

    name = "balancer_restarted"
    title = "lb-1's HAProxy restarted"
    victim = "lb-1"
    programs = ["haproxy"]

    def inject(self, hosts: Hosts, event: Event, seconds: float) -> None:
        event.started = time.time()
        hosts.programs(self.victim, "restart", self.programs)
        event.ended = time.time()
        event.detail["caused_in_s"] = round(event.ended - event.started, 2)

    def undo(self, hosts: Hosts) -> None:
        hosts.programs(self.victim, "start", self.programs)


CLUSTER_FAULTS: dict[str, Fault[Hosts]] = {
    f.name: f for f in (ServicesStopped(), LinkDown(), RollingDeploy(), HostRestarted(), BalancerRestarted())
}


@dataclass
class Played:
    """What ``play`` did: the load's start and end, and each fault's event in order."""

    load_started: float
    events: list[Event] = field(default_factory=list)
    load_ended: float | None = None


def play(
    hosts: Hosts,
    watch: Watch,
    faults: list[str],
    fault_seconds: float,
    quiet_seconds: float,
    back_timeout: float = 120,
) -> Played:
    """Each fault in turn under the load already running: ``quiet_seconds`` of load before the
    first and after each, the held faults held ``fault_seconds``, then a lost ecommerce host
    watched until the balancer has it UP and sends it requests again (at most ``back_timeout``
    s)."""
    played = Played(load_started=time.time())
    time.sleep(quiet_seconds)
    for name in faults:
        fault = CLUSTER_FAULTS[name]
        event = Event(name)
        played.events.append(event)
        try:
            fault.inject(hosts, event, fault_seconds)
        except Exception as exc:  # the table's row says why; the rest still play
            event.error = f"{type(exc).__name__}: {exc}"[:1500]
            try:
                fault.undo(hosts)
            except Exception:
                pass
        if isinstance(fault, HostFault) and event.ended is not None:
            _wait_until_back(watch, fault.victim, event, back_timeout)
        time.sleep(quiet_seconds)
    return played


def _wait_until_back(watch: Watch, victim: str, event: Event, timeout: float) -> None:
    """Wait until the balancer has ``victim`` UP and sends it a request again."""

    def up(servers: dict) -> bool:
        return servers.get(victim, {}).get("status") == "UP"

    event.detail["up_again"] = watch.wait_for(up, timeout)
    if event.detail["up_again"] is None:
        return
    counted = watch.latest(victim).get("requests", 0)

    def sent_one(servers: dict) -> bool:
        return servers.get(victim, {}).get("requests", 0) > counted

    event.detail["traffic_again"] = watch.wait_for(sent_one, timeout)
