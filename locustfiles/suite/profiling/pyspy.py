"""Where the services' time goes during a load run (make profile): py-spy samples each process
group's Python stacks during the measured step, and this module turns each recording into a
flame graph and the top frames (read by profiling/collapsed.py).

One recording per group: ecommerce and lms_stub (the gunicorn master with ``--subprocesses``,
so every worker, one set of figures for all of them), the rollup loop, and Locust itself. Each
is recorded once, in py-spy's ``raw`` format (collapsed stacks: one line per distinct stack,
``caller;...;callee count``), ``--function`` (a frame is a function, named by its first line,
so the samples of one function add up wherever it was when sampled). From that one file come
``flame-<group>.svg`` (flamegraph.py, our renderer) and the top frames; the file stays in the
run folder as ``stacks-<group>.txt`` for any other tool (flamegraph.pl, speedscope, inferno).

What a sample means. Recorded with ``--gil``, a sample is a thread that held the GIL: running
Python (or C code that keeps the GIL). Without it py-spy counts every thread it does not see as
idle, and here it does not see gevent's idle threads as idle: the threadpool's workers waiting
on their lock and the hub waiting in libev made half to four fifths of the samples, py-spy fell
seconds behind and the services' p95 rose from about 0.1 s to 5 s
(docs/decisions/0048-make-profile-py-spy-with-gil.md). With ``--gil`` the samples add up to
about the CPU time each group used; what they leave out is time in system calls and C code that
release the GIL (a socket's send and recv, libev's poll). A process the kernel preempted while
it held the GIL is still sampled where it stopped, so on a machine with fewer cores than busy
processes the shares are of time holding the GIL, which is CPU time only when the process had a
core. Each group's CPU seconds over the same window are recorded beside its sampled seconds
(samples / rate) to show the gap. The gevent hub's loop (``run`` in gevent/hub.py) on top of a
stack is the worker dispatching between greenlets while it holds the GIL; it is named "event
loop" and counted apart (``event_loop_samples``), not spread over the requests.

py-spy needs ptrace (root, or CAP_SYS_PTRACE): without it, or without py-spy, the run goes on
and the summary says why no profile was taken.
"""

import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import gevent
import psutil

from locustfiles.suite.profiling import flamegraph
from locustfiles.suite.profiling.collapsed import behind_seconds, kind, read_collapsed, top_frames
from locustfiles.suite.record import sampler

GROUPS = ("ecommerce", "lms_stub", "rollup", "locust")
STOP_SECONDS = 30  # how long py-spy may take to write its file once told to stop
SUMMARY_LINE = re.compile(r"Samples: (\d+) Errors: (\d+)")
PR_SET_PDEATHSIG = 1


# --- recording -------------------------------------------------------------------------------


def py_spy() -> str | None:
    """The py-spy beside this Python (the virtualenv's), else on PATH."""
    beside = Path(sys.executable).parent / "py-spy"
    return str(beside) if beside.exists() else shutil.which("py-spy")


def _die_with_parent() -> None:
    """In the child before exec: py-spy gets SIGINT (stop and write what it has) if the Locust
    process that started it dies without stopping it."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGINT)


@dataclass
class Recording:
    group: str
    pid: int | None = None  # the process py-spy attaches to
    subprocesses: bool = False
    process: subprocess.Popen | None = None
    error: str | None = None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


class Profiler:
    """py-spy on every process group, for one window of a run. ``start`` and ``stop`` may be
    called from a greenlet of Locust's process; ``results`` after the run."""

    def __init__(self, run_dir: Path, var_dir: Path, rate: int, distributed: bool = False):
        self.run_dir, self.var_dir, self.rate = Path(run_dir), Path(var_dir), rate
        self.distributed = distributed
        self.recordings: dict[str, Recording] = {}
        self.started: float | None = None
        self.stopped: float | None = None
        self.cpu_before: dict[str, dict[int, float]] = {}
        self.cpu_after: dict[str, dict[int, float]] = {}
        self.not_taken: str | None = None

    # --- the processes ---------------------------------------------------------------------

    def target(self, group: str) -> tuple[int, bool]:
        """(pid py-spy attaches to, with its subprocesses) for a group; OSError/ValueError if
        the group's process is not running."""
        if group == "locust":
            parent = psutil.Process(os.getppid())
            if self.distributed and "locustfiles.suite.run" in " ".join(parent.cmdline()):
                return parent.pid, True  # the runner: the master and the workers below it
            return os.getpid(), False
        relative, children = sampler.GROUPS[group]
        pid = int((self.var_dir / relative).read_text().split()[0])
        if not psutil.pid_exists(pid):
            raise ValueError(f"pid {pid} of {relative} is not running")
        return pid, children

    def _processes(self, group: str) -> list[psutil.Process]:
        try:
            pid, children = self.target(group)
            top = psutil.Process(pid)
            found = [top, *(top.children(recursive=True) if children else [])]
        except (OSError, ValueError, psutil.Error):
            return []
        if group == "locust" and children:  # only Locust below the runner, not py-spy
            found = [p for p in found if _is_python(p)]
        return found

    def _cpu(self) -> dict[str, dict[int, float]]:
        seconds: dict[str, dict[int, float]] = {}
        for group in self.recordings:
            seconds[group] = {}
            for process in self._processes(group):
                try:
                    times = process.cpu_times()
                    seconds[group][process.pid] = times.user + times.system
                except psutil.Error:
                    continue
        return seconds

    # --- the window ------------------------------------------------------------------------

    def record(self, start_at: float, end_at: float) -> None:
        """From a greenlet: sample from ``start_at`` to ``end_at`` (epoch seconds). Killed
        early (the run stopped), it still stops every py-spy it started."""
        try:
            gevent.sleep(max(0.0, start_at - time.time()))
            self.start(end_at - time.time() + STOP_SECONDS)
            gevent.sleep(max(0.0, end_at - time.time()))
        finally:
            self.stop()

    def start(self, limit_seconds: float) -> None:
        """Start one py-spy per group; each stops by itself after ``limit_seconds`` should
        ``stop`` never come."""
        executable = py_spy()
        self.started = time.time()
        for group in GROUPS:
            recording = self.recordings[group] = Recording(group)
            if executable is None:
                recording.error = "py-spy is not installed (pip install py-spy; see requirements.txt)"
                continue
            try:
                recording.pid, recording.subprocesses = self.target(group)
            except (OSError, ValueError, psutil.Error) as exc:
                recording.error = f"its process was not found: {exc}"
                continue
            command = [
                executable,
                "record",
                "--pid",
                str(recording.pid),
                "--rate",
                str(self.rate),
                "--format",
                "raw",
                "--function",
                "--gil",
                "--duration",
                str(max(1, round(limit_seconds))),
                "--output",
                str(self.stacks_path(group)),
                *(["--subprocesses"] if recording.subprocesses else []),
            ]
            log = open(self.log_path(group), "w")  # noqa: SIM115 (the child writes it)
            try:
                recording.process = subprocess.Popen(
                    command, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent
                )
            except OSError as exc:
                recording.error = f"py-spy could not be started: {exc}"
            finally:
                log.close()
        self.cpu_before = self._cpu()

    def stop(self) -> None:
        """Tell every py-spy still sampling to stop and write its file (SIGINT: it writes what
        it has; SIGTERM would lose it)."""
        if self.started is None or self.stopped is not None:
            return
        self.stopped = time.time()
        self.cpu_after = self._cpu()
        for recording in self.recordings.values():
            if recording.running:
                assert recording.process is not None, "a running recording has its process"
                recording.process.send_signal(signal.SIGINT)

    def wait(self, seconds: float = STOP_SECONDS) -> None:
        """Wait for every py-spy to exit; kill one that does not in time (by its pid)."""
        deadline = time.monotonic() + seconds
        for recording in self.recordings.values():
            if recording.process is None:
                continue
            try:
                recording.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                recording.process.kill()
                recording.process.wait()
                recording.error = f"py-spy did not stop within {seconds:g} s and was killed"

    # --- the results -----------------------------------------------------------------------

    def stacks_path(self, group: str) -> Path:
        return self.run_dir / f"stacks-{group}.txt"

    def svg_path(self, group: str) -> Path:
        return self.run_dir / f"flame-{group}.svg"

    def log_path(self, group: str) -> Path:
        return self.run_dir / f"py-spy-{group}.log"

    def results(self) -> dict:
        """summary.json's ``profiling``: how it was taken, and per group the files, samples,
        CPU seconds and top frames (or why that group has none)."""
        if self.started is None:
            return {
                "taken": False,
                "reason": self.not_taken or "the run stopped before the measured step began",
                "rate_hz": self.rate,
                "groups": {},
            }
        self.stop()
        self.wait()
        assert self.stopped is not None, "stop() sets it once the recordings started"
        seconds = round(self.stopped - self.started, 1)
        groups = {group: self._group(group, rec, seconds) for group, rec in self.recordings.items()}
        reasons = {group: g["error"] for group, g in groups.items() if g.get("error")}
        taken = any(g.get("samples") for g in groups.values())
        return {
            "taken": taken,
            "reason": None if taken else "; ".join(f"{g}: {r}" for g, r in reasons.items()) or "no samples",
            "tool": _version(),
            "rate_hz": self.rate,
            "seconds": seconds,
            "groups": groups,
        }

    def _group(self, group: str, recording: Recording, seconds: float) -> dict:
        if recording.error:
            return {"error": recording.error}
        log = self.log_path(group).read_text(errors="replace") if self.log_path(group).exists() else ""
        stacks_file = self.stacks_path(group)
        if not stacks_file.exists():
            assert recording.process is not None, "a recording without an error was started"
            last = [line for line in log.splitlines() if line.strip()][-1:] or ["no output"]
            return {"error": f"py-spy wrote no stacks (exit code {recording.process.returncode}): {last[0]}"}
        read = read_collapsed(stacks_file.read_text(errors="replace"))
        figures = top_frames(read.stacks)
        cpu = sum(
            max(after - self.cpu_before.get(group, {}).get(pid, after), 0.0)
            for pid, after in self.cpu_after.get(group, {}).items()
        )
        reported = SUMMARY_LINE.search(log)
        self.svg_path(group).write_text(
            flamegraph.render(
                read.stacks,
                f"{group}: where the time goes",
                f"{figures['samples']} samples at {self.rate} Hz over {seconds:g} s, "
                f"{len(read.processes) or 1} process(es); event loop "
                f"{_percent(figures['event_loop_samples'], figures['samples'])} %; "
                "click a frame to zoom, the bottom bar to zoom out",
                kind,
            )
        )
        return {
            "svg": self.svg_path(group).name,
            "stacks": stacks_file.name,
            "pid": recording.pid,
            "processes": {str(pid): n for pid, n in sorted(read.processes.items())},
            "sampled_seconds": round(figures["samples"] / self.rate, 1),
            "cpu_seconds": round(cpu, 1),
            "behind_seconds": round(behind_seconds(log), 2),
            "sampling_errors": int(reported.group(2)) if reported else None,
            **figures,
        }


def _percent(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


def _is_python(process: psutil.Process) -> bool:
    try:
        return "python" in os.path.basename(process.exe())
    except psutil.Error:
        return False


def _version() -> str | None:
    executable = py_spy()
    if not executable:
        return None
    done = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=10)
    return done.stdout.strip() or None
