"""A py-spy recording read (profiling/pyspy.py records it): collapsed stacks per process, each
frame's function, file and line, whether it is our code or the gevent hub's loop, the top
frames by self and inclusive samples, and how far py-spy said it fell behind."""

import re
from collections import Counter
from dataclasses import dataclass, field

# Our code, as py-spy names the files (relative to the checkout, which is on sys.path).
OWN_CODE = ("ecommerce/", "lms_stub/", "common/", "locustfiles/", "settings/")
EVENT_LOOP = "event loop"
TOP = 25  # frames kept per list in summary.json (the report shows 10)
BEHIND = re.compile(r"([\d.]+)(ns|µs|us|ms|s) behind in sampling")
FRAME = re.compile(r"^(?P<function>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")
PROCESS = re.compile(r'process (\d+):".*?";', re.DOTALL)


@dataclass
class Stacks:
    """A recording, read: samples per stack (process frames taken off, so the workers of a
    gunicorn master add up) and per process."""

    stacks: Counter = field(default_factory=Counter)  # tuple of frames -> samples
    processes: Counter = field(default_factory=Counter)  # pid -> samples

    @property
    def samples(self) -> int:
        return sum(self.stacks.values())


def read_collapsed(text: str) -> Stacks:
    """Collapsed stacks (``frame;frame;... count`` lines) as py-spy's raw format writes them.
    With ``--subprocesses`` each stack starts with its process and the processes above it
    (``process 12:"cmdline";``); a command line may hold a newline, so a line without its count
    is continued by the next."""
    read = Stacks()
    pending = ""
    for line in text.splitlines():
        line = pending + line
        stack, _, count = line.rpartition(" ")
        if not count.isdigit() or not stack:
            pending = line + "\n"
            continue
        pending = ""
        pid = None
        while match := PROCESS.match(stack):
            pid = int(match.group(1))
            stack = stack[match.end() :]
        frames = tuple(frame for frame in stack.split(";") if frame)
        if frames:
            read.stacks[frames] += int(count)
            if pid is not None:
                read.processes[pid] += int(count)
    return read


def parse_frame(frame: str) -> dict:
    """ "handle (gunicorn/workers/base_async.py:48)" as its function, file and line."""
    match = FRAME.match(frame)
    if not match:
        return {"function": frame, "file": "", "line": None}
    line = match.group("line")
    return {
        "function": match.group("function"),
        "file": match.group("file"),
        "line": int(line) if line else None,
    }


def is_event_loop(frame: str) -> bool:
    """The gevent hub's loop: its ``run`` in gevent/hub.py."""
    parsed = parse_frame(frame)
    return parsed["function"] == "run" and parsed["file"].endswith("gevent/hub.py")


def is_own_code(frame: str) -> bool:
    return parse_frame(frame)["file"].startswith(OWN_CODE)


def kind(frame: str) -> str:
    """For the flame graph's colours."""
    if is_event_loop(frame):
        return EVENT_LOOP
    return "own" if is_own_code(frame) else "other"


def _row(frame: str, samples: int, total: int) -> dict:
    return {
        **parse_frame(frame),
        "frame": frame,
        "samples": samples,
        "percent": round(100 * samples / total, 1) if total else 0.0,
        "own_code": is_own_code(frame),
        "event_loop": is_event_loop(frame),
    }


def _ranked(counter: Counter, total: int, limit: int) -> list[dict]:
    ordered = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    return [_row(frame, samples, total) for frame, samples in ordered[:limit]]


def top_frames(stacks: Counter, limit: int = TOP) -> dict:
    """The frames that cost the most, as % of all the group's samples:

    * ``top_self``: the frame on top of the stack (where the time was spent);
    * ``top_inclusive``: the frame anywhere on the stack (the time spent in it and in what it
      called; a recursive frame counts once per sample);
    * ``top_own``: the inclusive figures of our own code only (the views, the order path, the
      fulfilment client), which the framework's frames would otherwise push down the list.

    The event loop's samples (the hub's ``run`` on top) are counted in ``event_loop_samples``."""
    total = sum(stacks.values())
    on_top: Counter = Counter()
    anywhere: Counter = Counter()
    for frames, samples in stacks.items():
        on_top[frames[-1]] += samples
        for frame in set(frames):
            anywhere[frame] += samples
    own = Counter({frame: n for frame, n in anywhere.items() if is_own_code(frame)})
    return {
        "samples": total,
        "event_loop_samples": sum(n for frame, n in on_top.items() if is_event_loop(frame)),
        "top_self": _ranked(on_top, total, limit),
        "top_inclusive": _ranked(anywhere, total, limit),
        "top_own": _ranked(own, total, limit),
    }


def behind_seconds(log: str) -> float:
    """The most py-spy said it fell behind in sampling (0 if it never did)."""
    units = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    return max((float(value) * units[unit] for value, unit in BEHIND.findall(log)), default=0.0)
