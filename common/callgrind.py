"""Counting a process's instructions under valgrind's callgrind, between marks it sets itself.

CPU milliseconds drift with the machine (common/calibration divides the drift out); the number
of instructions a process executes does not: callgrind counts them on a simulated CPU, the same
on a slow hour as on a fast one. Both services' benches use it (ecommerce/orders/instructions.py,
lms_stub/bench/): the bench runs under valgrind, and marks what is to be counted by calling two
C library functions nothing else in it calls (``os.ctermid`` at a start, ``os.getloadavg`` at an
end), each a ``--dump-before`` of callgrind. callgrind writes its counters out and zeroes them
before each: a dump written at an end mark holds exactly what ran since the start mark before it.
A bench may mark one stretch (ecommerce's measured orders) or many (lms_stub's calls one by
one); a run whose marks were not met as many times as it said, in turn, is refused.

What valgrind'd processes run with (``DETERMINISTIC``): hash seeds fixed (dicts and sets iterate
alike in every run), and a pooled connection never pinged before reuse: natively the next request
takes it back within milliseconds, under valgrind's slowdown (some fifty times) it would idle
past DB_POOL_PING_AFTER (1 s) and count a statement native runs never send.
"""

import os
import re
import subprocess
import tempfile
from pathlib import Path

START_AT = "ctermid"  # os.ctermid: callgrind writes out what ran before the stretch here
END_AT = "getloadavg"  # os.getloadavg: and the stretch here
START, END = f"--dump-before={START_AT}", f"--dump-before={END_AT}"
AGREE_PCT = 1.0  # two runs further apart than this: the count is not to be trusted
DETERMINISTIC = {"PYTHONHASHSEED": "0", "DB_POOL_PING_AFTER": "3600"}
TIMEOUT_SECONDS = 1800
PART = re.compile(r"^part:\s+(\d+)\s*$", re.MULTILINE)
SUMMARY = re.compile(r"^summary:\s+(\d+)\s*$", re.MULTILINE)
TRIGGER = re.compile(r"^desc: Trigger: (.*)$", re.MULTILINE)


class CountFailed(Exception):
    """A counted run failed, or its marks were not met as it said."""


def start_counting() -> None:
    """Mark the start of a stretch to count (START_AT)."""
    os.ctermid()


def stop_counting() -> None:
    """Mark its end (END_AT)."""
    os.getloadavg()


def command(out_file: Path, program: list[str]) -> list[str]:
    """valgrind's command line for one counted run of ``program``."""
    return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", START, END, *program]


def run(program: list[str], folder: Path, env: dict[str, str], timeout: float = TIMEOUT_SECONDS):
    """``program`` under callgrind (``env`` over this process's environment and DETERMINISTIC):
    its standard output and its dumps (``read_dump``'s form), or CountFailed."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as name:
        where = Path(name)
        done = subprocess.run(
            command(where / "callgrind.out", program),
            env={**os.environ, **DETERMINISTIC, **env},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            what = " ".join(program[1:3])
            raise CountFailed(f"{what} under callgrind failed: {done.stderr.strip()[-2000:]}")
        return done.stdout, [read_dump(path) for path in where.glob("callgrind.out*")]


def stretches(dumps: list[tuple[int, int, str]], expected: int) -> list[int]:
    """The instructions of each marked stretch, in order: the dumps written at END_AT, each
    right after one written at START_AT, ``expected`` times (dumps as ``read_dump`` gives them;
    after the last, only dumps of no mark, such as the program's end)."""
    triggers = [trigger for _, _, trigger in sorted(dumps)]
    marked, after = triggers[: 2 * expected], triggers[2 * expected :]
    if marked != [START, END] * expected or START in after or END in after:
        raise CountFailed(f"the marks were not met {expected} times each, in turn: dumps at {triggers}")
    return [count for _, count, trigger in sorted(dumps) if trigger == END]


def between_marks(dumps: list[tuple[int, int, str]]) -> int:
    """The instructions of the one marked stretch (``stretches``)."""
    try:
        return stretches(dumps, 1)[0]
    except CountFailed:
        triggers = [trigger for _, _, trigger in sorted(dumps)]
        raise CountFailed(f"the marks were not met once each, in order: dumps at {triggers}") from None


def spread_pct(counts: list[int]) -> float:
    """How far apart runs' counts are, in per cent of their mean."""
    mean = sum(counts) / len(counts)
    return round((max(counts) - min(counts)) * 100 / mean, 3)


def read_dump(path: Path) -> tuple[int, int, str]:
    """A callgrind dump's part (its place among the run's dumps), instruction count (its
    ``summary:`` line) and what triggered it."""
    text = path.read_text(errors="replace")
    part, summary, trigger = PART.search(text), SUMMARY.search(text), TRIGGER.search(text)
    if not part or not summary or not trigger:
        raise CountFailed(f"{path} is not a callgrind dump")
    return int(part[1]), int(summary[1]), trigger[1].strip()
