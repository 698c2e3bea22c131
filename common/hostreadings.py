"""A host's readings over HTTP, for the load suite on another host.

The Locust master cannot see the processes of the hosts it loads. Each host runs this agent
(the common role makes it a program of the host's own supervisord): a read-only HTTP server
that answers ``GET /readings`` with

* ``host``: the host's name; ``boot_id``: its kernel's (hosts simulated on one machine share a
  kernel and so the machine's busy time: the suite counts each kernel once);
* ``machine_busy_seconds``: every core's busy time since boot, from /proc/stat (all but idle
  and iowait), and ``cores``;
* ``groups``: for each process group running on the host (ecommerce, lms_stub, rollup,
  mariadb, haproxy, locust; ``readings``, this agent; ``other``, a program none of them), the
  CPU seconds of each of its processes (by pid) and their resident memory together;
* ``monotonic``: the host's monotonic clock, which the suite divides the CPU by (hosts' wall
  clocks may differ; the seconds between two readings of one host do not).

Processes are found from the host's supervisord: each of its children is a program, named by
its command line, and counts with its descendants (gunicorn's workers). The agent is one of
those programs itself (``--supervised``: its parent is the supervisord; the deployment's pid
file is in a folder only root reads), or is told the supervisord's pid file
(``--supervisord-pidfile``). Without supervisord (a developer's stack
started by scripts/stack.sh) pid files name the groups: ``--group ecommerce=var/run/ecommerce.pid``
(with its descendants). Everything is read from /proc, which any user may read: the agent needs
no privilege, and runs as the service user.

Who may read: the agent listens on the host's private address only and answers the addresses
of ``--allow`` (the Locust master's); anyone else gets 403. The readings are not secret (CPU
seconds and memory sizes), the agent changes nothing, and a token would be one more secret on
hosts that hold none of the load suite's (db-1, lb-1): the address is enough.

Standard library only, one file: the database and load balancer hosts have no virtualenv, and
the role runs it with the system python3.

    python3 common/hostreadings.py --name db-1 --bind 10.213.1.10 --port 18190 \
        --allow 10.213.1.40 --supervised
"""

import argparse
import ipaddress
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PROC = "/proc"
PATH = "/readings"
VERSION = 1
# /proc/stat's "cpu" line: user nice system idle iowait irq softirq steal guest guest_nice.
# guest and guest_nice are already inside user and nice (proc(5)), so they are not added.
IDLE_FIELDS = (3, 4)  # idle, iowait
COUNTED_FIELDS = 8
# The groups whose CPU the suite adds up across hosts; the rest it shows per host only
# (Locust's processes report their own CPU to the master; this agent and unknown programs are
# no part of the system under test).
SERVICE_GROUPS = ("ecommerce", "lms_stub", "rollup", "mariadb", "haproxy")


# --- /proc ------------------------------------------------------------------------------------


def busy_ticks(proc_stat: str) -> int:
    """The ticks every core was busy since boot, from /proc/stat's text: user + nice + system +
    irq + softirq + steal, i.e. all but idle and iowait. ValueError if there is no "cpu" line."""
    for line in proc_stat.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            ticks = [int(v) for v in fields[1 : 1 + COUNTED_FIELDS]]
            return sum(v for i, v in enumerate(ticks) if i not in IDLE_FIELDS)
    raise ValueError("no aggregate 'cpu' line in /proc/stat")


def machine_busy_seconds(path: str = f"{PROC}/stat") -> float | None:
    """CPU seconds all cores together were busy since boot; None where /proc/stat is not there
    (the machine's figure is then not measured)."""
    try:
        with open(path) as handle:
            text = handle.read()
        return busy_ticks(text) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None


def parse_stat(text: str) -> tuple[int, float, int]:
    """(parent pid, CPU seconds, resident pages) from a /proc/<pid>/stat line. The command name
    is in parentheses and may hold spaces and parentheses itself: the fields follow its last
    ")". ValueError if the line is not one."""
    _, paren, rest = text.rpartition(")")
    fields = rest.split()
    if not paren or len(fields) < 22:
        raise ValueError("not a /proc/<pid>/stat line")
    # After the name: state(0) ppid(1) ... utime(11) stime(12) ... rss(21), proc(5)'s 3, 4, 14,
    # 15 and 24 counted from 1.
    ticks = int(fields[11]) + int(fields[12])
    return int(fields[1]), ticks / os.sysconf("SC_CLK_TCK"), int(fields[21])


class Process:
    __slots__ = ("cpu_seconds", "parent", "pid", "rss_bytes")

    def __init__(self, pid: int, parent: int, cpu_seconds: float, rss_bytes: int):
        self.pid, self.parent, self.cpu_seconds, self.rss_bytes = pid, parent, cpu_seconds, rss_bytes


def process_table(proc: str = PROC) -> dict[int, Process]:
    """Every process /proc shows now; one that ends while it is read is left out."""
    page = os.sysconf("SC_PAGE_SIZE")
    table = {}
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"{entry.path}/stat") as handle:
                parent, seconds, pages = parse_stat(handle.read())
        except (OSError, ValueError):
            continue
        pid = int(entry.name)
        table[pid] = Process(pid, parent, seconds, pages * page)
    return table


def descendants(root: int, table: dict[int, Process]) -> list[int]:
    """``root`` and every process below it (gunicorn's master and its workers)."""
    children: dict[int, list[int]] = {}
    for process in table.values():
        children.setdefault(process.parent, []).append(process.pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in table and pid not in found:
            found.append(pid)
            todo.extend(children.get(pid, ()))
    return found


def command_line(pid: int, proc: str = PROC) -> list[str]:
    try:
        with open(f"{proc}/{pid}/cmdline", "rb") as handle:
            return [part.decode(errors="replace") for part in handle.read().split(b"\0") if part]
    except OSError:
        return []


def classify(argv: list[str]) -> str:
    """The group of a supervisord program from its command line: what the deployment's roles
    run (ansible/roles/*/templates/*.supervisor.conf.j2)."""
    names = [os.path.basename(part) for part in argv[:3]]  # an interpreter, then its script
    text = " ".join(argv)
    if {"mariadbd", "mysqld"} & set(names):
        return "mariadb"
    if "haproxy" in names:
        return "haproxy"
    if "hostreadings.py" in names or "common.hostreadings" in argv:
        return "readings"
    if "locust" in names:
        return "locust"
    if "rollup_counters" in argv or "purge_payment_records" in argv:  # ecommerce's background loops
        return "rollup"
    if "gunicorn" in text:  # its configuration file is named after the service
        if "lms_stub" in text:
            return "lms_stub"
        if "ecommerce" in text:
            return "ecommerce"
    return "other"


# --- what a reading holds ---------------------------------------------------------------------


def read_pidfile(path: Path) -> int | None:
    try:
        return int(Path(path).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class Sources:
    """Where the host's processes are found: a supervisord's pid file, and/or pid files by group
    (``{group: (path, with descendants)}``)."""

    def __init__(
        self,
        supervisord_pidfile: Path | None = None,
        pidfiles: dict[str, tuple[Path, bool]] | None = None,
        proc: str = PROC,
        supervisord_pid: int | None = None,
    ):
        self.supervisord_pidfile = supervisord_pidfile
        self.supervisord_pid = supervisord_pid  # known (the agent's parent) rather than read
        self.pidfiles = pidfiles or {}
        self.proc = proc

    def groups(self, table: dict[int, Process]) -> tuple[dict[str, list[int]], list[str]]:
        """({group: pids}, notes): the pids of each group, and what could not be found."""
        found: dict[str, list[int]] = {}
        notes = []
        pidfile = self.supervisord_pidfile
        if self.supervisord_pid is not None or pidfile is not None:
            root = self.supervisord_pid or (read_pidfile(pidfile) if pidfile is not None else None)
            if root is None or root not in table:
                notes.append(f"supervisord is not running ({self.supervisord_pidfile or root})")
            else:
                for process in table.values():
                    if process.parent == root:
                        group = classify(command_line(process.pid, self.proc))
                        found.setdefault(group, []).extend(descendants(process.pid, table))
        for group, (path, tree) in self.pidfiles.items():
            pid = read_pidfile(path)
            if pid is None or pid not in table:
                notes.append(f"{group} is not running ({path})")
                found.setdefault(group, [])
                continue
            found.setdefault(group, []).extend(descendants(pid, table) if tree else [pid])
        return found, notes


def boot_id(proc: str = PROC) -> str | None:
    try:
        return Path(f"{proc}/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def reading(name: str, sources: Sources) -> dict:
    """This host's reading now (the answer to GET /readings)."""
    table = process_table(sources.proc)
    found, notes = sources.groups(table)
    groups = {}
    for group, pids in found.items():
        processes = [table[pid] for pid in dict.fromkeys(pids)]
        groups[group] = {
            "cpu": {str(p.pid): round(p.cpu_seconds, 2) for p in processes},
            "rss_bytes": sum(p.rss_bytes for p in processes),
        }
    return {
        "version": VERSION,
        "host": name,
        "boot_id": boot_id(sources.proc),
        "time": time.time(),
        "monotonic": time.monotonic(),
        "cores": os.cpu_count(),
        "machine_busy_seconds": machine_busy_seconds(f"{sources.proc}/stat"),
        "groups": groups,
        "notes": notes,
    }


# --- the HTTP server --------------------------------------------------------------------------


def parse_allowed(items: list[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The addresses or networks that may read ("10.213.1.40", "10.213.1.0/24")."""
    return [ipaddress.ip_network(item.strip(), strict=False) for item in items if item.strip()]


def allowed(address: str, networks) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return any(ip in network for network in networks)


class Handler(BaseHTTPRequestHandler):
    server: "ReadingsServer"  # the one server this handler is made for (its allowed, sources)
    server_version = "hostreadings/1"
    sys_version = ""

    def _answer(self, status: int, body: dict, headers: dict | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _refused(self) -> bool:
        if allowed(self.client_address[0], self.server.allowed):
            return False
        self.log_message("refused %s", self.client_address[0])
        self._answer(403, {"error": "forbidden", "detail": "this address may not read the host's readings"})
        return True

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self._refused():
            return
        if self.path.split("?", 1)[0] != PATH:
            self._answer(404, {"error": "not_found", "detail": f"GET {PATH}"})
            return
        try:
            body = reading(self.server.host_name, self.server.sources)
        except OSError as exc:  # /proc unreadable: say so, never a half answer
            self._answer(500, {"error": "unreadable", "detail": str(exc)})
            return
        self._answer(200, body)

    do_HEAD = do_GET  # noqa: N815

    def _read_only(self) -> None:
        if self._refused():
            return
        self._answer(
            405, {"error": "method_not_allowed", "detail": "read-only: GET only"}, {"Allow": "GET, HEAD"}
        )

    do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _read_only  # noqa: N815

    def log_message(self, format, *args):  # noqa: A002 (http.server's signature)
        if args and args[0] == "refused":
            return super().log_message(format, *args)
        # Answers are not logged: the suite reads every second or so, for hours.


class ReadingsServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], host_name: str, sources: Sources, allowed_networks):
        self.host_name, self.sources, self.allowed = host_name, sources, allowed_networks
        super().__init__(address, Handler)


def _pidfile_option(text: str) -> tuple[str, tuple[Path, bool]]:
    group, sep, path = text.partition("=")
    if not sep or not group or not path:
        raise argparse.ArgumentTypeError(f"--group takes GROUP=PIDFILE, not {text!r}")
    return group, (Path(path), True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve this host's CPU and memory readings (read-only).")
    parser.add_argument("--name", required=True, help="this host's name in the readings (db-1)")
    parser.add_argument("--bind", default="127.0.0.1", help="address to listen on: the host's private one")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument(
        "--allow",
        default="127.0.0.1",
        help="comma-separated addresses or networks that may read (the Locust master's); others get 403",
    )
    parser.add_argument(
        "--supervised",
        action="store_true",
        help="this agent is a supervisord program: the supervisord that runs it is the host's",
    )
    parser.add_argument(
        "--supervisord-pidfile", type=Path, help="the host's supervisord: its programs are the groups"
    )
    parser.add_argument(
        "--group",
        type=_pidfile_option,
        action="append",
        default=[],
        help="GROUP=PIDFILE: a group found by its pid file, with its descendants (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.supervisord_pidfile is None and not args.supervised and not args.group:
        parser.error("say where the processes are: --supervised, --supervisord-pidfile and/or --group")
    parent = None
    if args.supervised:
        parent = os.getppid()
        # supervisord itself: its program (or, for a script, the interpreter's first argument)
        # is named supervisord; any other word of the command line may say it (pytest -k ...).
        if "supervisord" not in [os.path.basename(word) for word in command_line(parent)[:2]]:
            parser.error(f"--supervised, but the parent process ({parent}) is not a supervisord")
    try:
        networks = parse_allowed(args.allow.split(","))
    except ValueError as exc:
        parser.error(f"--allow: {exc}")
    sources = Sources(args.supervisord_pidfile, dict(args.group), supervisord_pid=parent)
    server = ReadingsServer((args.bind, args.port), args.name, sources, networks)
    print(f"hostreadings: {args.name} on http://{args.bind}:{server.server_port}{PATH}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
