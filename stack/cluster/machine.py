"""This machine as the cluster acts on it: the programs it runs (their exit status as the shell
gave it: 128 + N for one ended by signal N), the processes it starts in the background, the
processes it finds by network namespace, the users it looks up, and the signals it defers.

Every command, file and process outside CLUSTER_DIR goes through a ``Machine``, so that the unit
tests can give the commands a machine that records what they would run and answers for it."""

import contextlib
import grp
import os
import pwd
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from stack.processes import StepFailed, pid_matches, running, say

DEVNULL = subprocess.DEVNULL


class Interrupted(Exception):
    """A signal ended `make cluster-test`: SIGINT or SIGTERM once the running program has ended
    (``status`` 130, as scripts/cluster.sh's `trap 'exit 130' INT TERM`), SIGHUP at once (129,
    a hung-up terminal: bash ran its EXIT trap, the teardown, before it died of it)."""

    def __init__(self, status: int = 130):
        super().__init__(status)
        self.status = status


def shell_status(returncode: int) -> int:
    """A child's exit status as the shell reports it: 128 + N for one ended by signal N."""
    return 128 - returncode if returncode < 0 else returncode


def not_started(argv: list[str], error: OSError) -> int:
    """A program that could not be started, said as the shell says it: its status 127 when it is
    not found, else 126."""
    say(f"{argv[0]}: {error.strerror}")
    return 127 if isinstance(error, FileNotFoundError) else 126


def _as_background_job() -> None:
    """In a child the cluster leaves running: SIGINT and SIGQUIT ignored, as bash left them for a
    job started with `&` (no job control), so a Ctrl-C in the terminal never ends a host's sshd
    or the wheelhouse server while a command that would tear them down is still running."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)


class Machine:
    """This machine: ``proc`` its processes, ``run_dir`` its runtime folder (network namespaces'
    names, sshd's privilege separation folder, the cluster's owner), ``policy_rc`` the file that
    keeps packages from starting services."""

    proc = Path("/proc")
    run_dir = Path("/run")
    policy_rc = Path("/usr/sbin/policy-rc.d")

    def __init__(self) -> None:
        self.quiet = False
        self.pending: int | None = None
        self.children: list[subprocess.Popen] = []

    # --- Programs -------------------------------------------------------------------------------

    def call(self, argv: list[str], **options) -> int:
        """Run ``argv`` to its end (its output the cluster command's, unless redirected); its status."""
        if self.quiet:
            options.setdefault("stdout", DEVNULL)
            options.setdefault("stderr", DEVNULL)
        sys.stdout.flush()
        try:
            status = shell_status(subprocess.run(argv, check=False, **options).returncode)
        except OSError as error:
            status = not_started(argv, error)
        self.check_signals()
        return status

    def step(self, argv: list[str], **options) -> None:
        """Run a program whose failure ends the command with its status (as `set -e` did)."""
        status = self.call(argv, **options)
        if status:
            raise StepFailed(status)

    def succeeds(self, argv: list[str]) -> bool:
        """True when ``argv`` exits 0; what it writes is dropped."""
        return self.call(argv, stdout=DEVNULL, stderr=DEVNULL) == 0

    def output(self, argv: list[str], **options) -> tuple[int, str]:
        """``argv``'s status and what it wrote to stdout."""
        if self.quiet:
            options.setdefault("stderr", DEVNULL)
        try:
            done = subprocess.run(
                argv, stdout=subprocess.PIPE, text=True, errors="replace", check=False, **options
            )
        except OSError as error:
            return not_started(argv, error), ""
        self.check_signals()
        return shell_status(done.returncode), done.stdout

    def filtered(self, argv: list[str], drop: str) -> int:
        """Run ``argv`` with its stderr on its stdout, passing on every line but those holding
        ``drop`` (as `2>&1 | grep -v`); its status."""
        sys.stdout.flush()
        try:
            child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except OSError as error:
            return not_started(argv, error)
        with child:
            assert child.stdout is not None
            for line in child.stdout:
                if drop.encode() not in line:
                    sys.stdout.buffer.write(line)
                    sys.stdout.flush()
        self.check_signals()
        return shell_status(child.returncode)

    def teed(self, argv: list[str], log: str, **options) -> int:
        """Run ``argv`` with its stdout through `tee LOG` (as `argv | tee LOG` under pipefail):
        its status, else tee's."""
        sys.stdout.flush()
        with subprocess.Popen(["tee", log], stdin=subprocess.PIPE) as tee:
            try:
                status = shell_status(
                    subprocess.run(argv, stdout=tee.stdin, check=False, **options).returncode
                )
            except OSError as error:
                status = not_started(argv, error)
            finally:
                assert tee.stdin is not None
                tee.stdin.close()
        self.check_signals()
        return status or shell_status(tee.returncode)

    def start(self, argv: list[str], log: str) -> int:
        """Start ``argv`` in the background, reading nothing and writing to ``log``: its pid."""
        with open(log, "wb") as output:
            child = subprocess.Popen(
                argv, stdin=DEVNULL, stdout=output, stderr=subprocess.STDOUT, preexec_fn=_as_background_job
            )
        self.children.append(child)
        return child.pid

    def reap(self) -> None:
        """Collect the background children that have ended (no zombie of ours is left)."""
        self.children = [child for child in self.children if child.poll() is None]

    def connects(self, address: str, port: str | int) -> bool:
        """True when something accepts a TCP connection on ``address``:``port``."""
        try:
            with socket.create_connection((address, int(port)), timeout=1):
                return True
        except OSError:
            return False

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)
        self.check_signals()

    def now(self) -> int:
        return int(time.time())

    def is_root(self) -> bool:
        return os.geteuid() == 0

    # --- Quiet and signals ----------------------------------------------------------------------

    @contextlib.contextmanager
    def quietly(self) -> Iterator[None]:
        """Nothing the block says, nor any program it runs, is shown (`>/dev/null 2>&1`)."""
        with (
            open(os.devnull, "w") as devnull,
            contextlib.redirect_stdout(devnull),
            contextlib.redirect_stderr(devnull),
        ):
            self.quiet = True
            try:
                yield
            finally:
                self.quiet = False

    @contextlib.contextmanager
    def deferring_signals(self) -> Iterator[None]:
        """SIGINT and SIGTERM end the block with ``Interrupted``, but only once the program that
        runs has ended (as a bash trap runs after the command in the foreground); SIGHUP ends it
        at once."""

        def note(signum: int, frame: object) -> None:
            self.pending = signum

        def hang_up(signum: int, frame: object) -> None:
            raise Interrupted(128 + signum)

        handlers = {signal.SIGINT: note, signal.SIGTERM: note, signal.SIGHUP: hang_up}
        previous = {signum: signal.signal(signum, handler) for signum, handler in handlers.items()}
        try:
            yield
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def check_signals(self) -> None:
        if self.pending is not None:
            self.pending = None
            raise Interrupted()

    # --- Processes ------------------------------------------------------------------------------

    def signal(self, pid: str, signum: int) -> None:
        """``signum`` to ``pid`` alone; one that is gone already is no error."""
        try:
            os.kill(int(pid), signum)
        except (OSError, ValueError):
            pass

    def running(self, pid: str) -> bool:
        """True while ``pid`` runs; a zombie has stopped."""
        return running(int(pid))

    def pid_matches(self, pid: str | None, pattern: str) -> bool:
        return pid_matches(pid, pattern)

    def cmdline(self, pid: str) -> str:
        """``pid``'s command line, its arguments each followed by a space ("" if it is gone)."""
        try:
            return (self.proc / pid / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            return ""

    def pids(self) -> list[str]:
        """Every process, in the order of the shell's /proc/[0-9]*."""
        return sorted(name for name in os.listdir(self.proc) if name.isdigit())

    def netns_pids(self, inode: int) -> list[str]:
        """Every process whose network namespace has ``inode``."""
        found = []
        for pid in self.pids():
            try:
                if os.stat(self.proc / pid / "ns" / "net").st_ino == inode:
                    found.append(pid)
            except OSError:
                continue  # ended, or a zombie's
        return found

    def own_netns(self) -> str:
        """This machine's own network namespace, as /proc/<pid>/ns/net names it."""
        try:
            return os.readlink(self.proc / "self" / "ns" / "net")
        except OSError:
            return ""

    def netns_inode(self, name: str) -> str:
        """The named network namespace's inode ("" if it has none)."""
        try:
            return str(os.stat(self.run_dir / "netns" / name).st_ino)
        except OSError:
            return ""

    def ssh_pids(self) -> list[str]:
        """Every process named ssh (`pgrep -x ssh`), lowest pid first."""
        found = []
        for pid in self.pids():
            with contextlib.suppress(OSError):
                if (self.proc / pid / "comm").read_text().rstrip("\n") == "ssh":
                    found.append(pid)
        return sorted(found, key=int)

    def mountinfo(self) -> str:
        try:
            return (self.proc / "self" / "mountinfo").read_text(errors="replace")
        except OSError:
            return ""

    # --- Users ----------------------------------------------------------------------------------

    def home_of(self, user: str) -> str | None:
        """``user``'s home, None if there is no such user."""
        try:
            return pwd.getpwnam(user).pw_dir
        except KeyError:
            return None

    def has_group(self, name: str) -> bool:
        try:
            grp.getgrnam(name)
        except KeyError:
            return False
        return True
