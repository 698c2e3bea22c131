"""Faults across hosts: an ecommerce host of the pair lost and back, and a rolling deploy of a
new release, under a steady load through the load balancer; and the fault table they make.

As the chaos profile's faults (faults.py), each is a ``Fault`` that causes itself for a while
and ends itself (``inject``, ``undo``), noting what it did in an ``Event``. Unlike those they
act on hosts (a host's supervisord, its network link, an Ansible play), from the machine that
holds them (root there), while the load runs on a Locust host: so a driver here plays them
(``play``), the balancer's stats are read all along (``Watch``), and the table is computed
afterwards from the Locust process's request log (REQUEST_LOG: each request's start, time,
status and whether its body was JSON), the balancer's readings and the suite's audit
(``table``). What reaches the hosts is a ``Hosts``: scripts/cluster.sh's in tests/cluster.

The times, in Unix seconds of one clock (the simulated hosts share the machine's; real hosts
need NTP, as the suite's distributed runs do):

* the fault: ``event.started``, just before it is caused;
* rerouted: the balancer shows the host DOWN (``down_after_s``), and the last request it sent
  the host (``last_routed_after_s``: the last reading whose count of requests sent to it grew);
* back: the fault's undo began (``event.detail["ending"]``), the balancer shows the host UP again
  (``up_again_after_s``) and sends it requests again (``traffic_again_after_s``).
"""

import csv
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from locustfiles.suite.chaos.event import Event
from locustfiles.suite.chaos.faults import Fault
from locustfiles.suite.core import blocks
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
        """supervisorctl ``action`` (stop, start) of ``names`` on ``host``."""
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


class HostFault(Fault):
    """A fault of one ecommerce host (``victim``), which the balancer must route around."""

    victim = "ecommerce-2"

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


class RollingDeploy(Fault):
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


CLUSTER_FAULTS: dict[str, Fault] = {f.name: f for f in (ServicesStopped(), LinkDown(), RollingDeploy())}


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
    first and after each, the host faults held ``fault_seconds``, then the host watched until
    the balancer has it UP and sends it requests again (at most ``back_timeout`` s)."""
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


# The driver's own notes in an event's detail, which the table gives as times instead.
WATCHED = ("ending", "up_again", "traffic_again")

# --- the table -------------------------------------------------------------------------------


def reroute(samples: list[tuple[float, dict]], server: str, fault_at: float, back_at: float | None) -> dict:
    """From the balancer's readings: seconds from ``fault_at`` until it showed ``server`` DOWN,
    and until the last reading in which it had sent ``server`` a request (before ``back_at``,
    when it was restored); then from ``back_at`` until UP again and a request sent again."""
    down = last_routed = up = traffic = None
    previous = None
    for moment, servers in samples:
        now = servers.get(server)
        if now is None:
            continue
        count = now.get("requests", 0)
        grew = previous is not None and count > previous
        previous = count
        if moment < fault_at:
            continue
        if back_at is None or moment < back_at:
            if down is None and now.get("status") in ("DOWN", "MAINT"):
                down = moment
            if grew:
                last_routed = moment
        elif down is not None:
            if up is None and now.get("status") == "UP":
                up = moment
            if up is not None and traffic is None and grew:
                traffic = moment

    def since(moment: float | None, origin: float | None) -> float | None:
        return round(moment - origin, 2) if moment is not None and origin is not None else None

    return {
        "down_after_s": since(down, fault_at),
        "last_routed_after_s": since(last_routed, fault_at) if last_routed is not None else 0.0,
        "up_again_after_s": since(up, back_at),
        "traffic_again_after_s": since(traffic, back_at),
    }


def states_during(samples: list[tuple[float, dict]], start: float, end: float) -> dict:
    """Each server's states as the balancer showed them in [start, end), in the order first
    seen, and the readings in which no server was UP (nobody to take a request)."""
    seen: dict[str, list[str]] = {}
    none_up = 0
    for moment, servers in samples:
        if not start <= moment < end:
            continue
        for name, now in servers.items():
            states = seen.setdefault(name, [])
            if now.get("status") not in states:
                states.append(now.get("status"))
        none_up += not any(now.get("status") == "UP" for now in servers.values())
    return {"states_seen": seen, "readings_with_no_server_up": none_up}


def windows(played: Played) -> list[tuple[str, float, float]]:
    """(name, start, end) of the load before the first fault and of each fault with the load
    after it, up to the next fault (the last: to the load's end)."""
    ends = [event.started or played.load_started for event in played.events]
    ends.append(played.load_ended or time.time())
    out = [("before the faults", played.load_started, ends[0])]
    for i, event in enumerate(played.events):
        out.append((event.fault, ends[i], ends[i + 1]))
    return out


def request_counts(requests: list[Request], start: float, end: float, fault_at: float | None) -> dict:
    """The requests that ended in [start, end) (a request under way when a fault began counts
    with the fault): how many, the failures by status, those not JSON, and the failures by when
    their request was under way: at the moment of the fault, or started after it."""
    inside = [r for r in requests if start <= r.end < end]
    failed = [r for r in inside if not r.ok]
    in_flight = [r for r in failed if fault_at is not None and r.start <= fault_at <= r.end]
    return {
        "requests": len(inside),
        "failures": len(failed),
        "failures_by_status": dict(sorted(Counter(str(r.status) for r in failed).items())),
        "failures_not_json": sum(1 for r in failed if not r.json),
        "failures_in_flight_at_fault": len(in_flight),
        "failures_started_after_fault": sum(1 for r in failed if fault_at is not None and r.start > fault_at),
    }


def table(
    played: Played,
    requests: list[Request],
    samples: list[tuple[float, dict]],
    audit_by_window: dict[int, dict],
) -> list[dict]:
    """One row per window (windows()): its requests and failures, the times to reroute and
    back (host faults), and the orders lost or duplicated (``audit_by_window``, the suite's
    audit per window index, after retry_fulfillment)."""
    rows = []
    for index, (name, start, end) in enumerate(windows(played)):
        event = played.events[index - 1] if index else None
        fault = CLUSTER_FAULTS.get(name)
        row = {
            "window": name,
            "title": fault.title if fault else "steady load, both hosts up",
            "seconds": round(end - start, 1),
            **request_counts(requests, start, end, event.started if event else None),
            "lost": audit_by_window.get(index, {}).get("lost", 0),
            "duplicates": audit_by_window.get(index, {}).get("duplicates", 0),
            "partial": audit_by_window.get(index, {}).get("partial", 0),
        }
        if event is not None:
            row["fault_seconds"] = round((event.ended or end) - event.started, 1) if event.started else None
            row["error"] = event.error
            row["detail"] = {k: v for k, v in event.detail.items() if k not in WATCHED}
        if event is not None and isinstance(fault, HostFault) and event.started is not None:
            # Back from the moment its undo began (a start returns after the program's startsecs,
            # by when the balancer may have it UP again).
            row.update(reroute(samples, fault.victim, event.started, event.detail.get("ending", event.ended)))
        if event is not None and isinstance(fault, RollingDeploy) and event.started is not None:
            row.update(states_during(samples, event.started, event.ended or end))
        rows.append(row)
    return rows


def window_of(played: Played):
    """``step_of`` for the suite's audit per step (audit.by_step): a Unix second's window index."""
    bounds = windows(played)

    def step_of(second: int) -> int | None:
        for index, (_, start, end) in enumerate(bounds):
            if int(start) <= second < end:
                return index
        return None

    return step_of


COLUMNS = (
    ("window", "fault"),
    ("seconds", "s"),
    ("requests", "requests"),
    ("failures_by_status", "failures by status"),
    ("failures_not_json", "not JSON"),
    ("failures_in_flight_at_fault", "in flight at the fault"),
    ("down_after_s", "DOWN after s"),
    ("last_routed_after_s", "last sent to it after s"),
    ("up_again_after_s", "UP again after s"),
    ("traffic_again_after_s", "traffic again after s"),
    ("lost", "lost"),
    ("duplicates", "duplicates"),
)


def markdown(rows: list[dict], notes: list[str] = ()) -> str:
    """The table as Markdown, a table block of the report model (core/blocks.py), with
    ``notes`` listed under it."""

    def shown(value):
        if isinstance(value, dict):
            return blocks.tally(value, "none")
        return value if value is None or isinstance(value, str) else blocks.cell(str(value), "num")

    found = blocks.table(
        [title for _, title in COLUMNS], [[shown(row.get(key)) for key, _ in COLUMNS] for row in rows]
    )
    return blocks.markdown_document("", [found, blocks.bullets(notes) if notes else None])
