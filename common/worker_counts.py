"""How many requests each gunicorn worker has taken, for whoever reads the host's processes.

The load suite reads each worker's CPU from /proc; how many requests a worker took is known only
inside it. So each worker keeps its count in a file of its own, ``<VAR_DIR>/run/<service>-workers/
<pid>``: eight bytes, an unsigned little-endian count, written through a shared memory map (one
store per request, no system call) by gunicorn's ``pre_request`` hook (settings/gunicorn_common.py).
A reader opens the file of each worker pid it knows and reads the count; the difference between
two readings is what the worker took in between. A worker removes its file when it exits; the
master empties the folder when it starts, so files of workers killed outright do not pile up.

Every request gunicorn hands the application counts: new work, the enrollment API's calls, health
checks, and those the admission middleware refuses (they took the worker's accept and parse).

Standard library only; nothing here knows about Django or gunicorn.
"""

import mmap
import os
from pathlib import Path

SIZE = 8  # bytes: an unsigned count, little-endian


def folder(var_dir: Path | str, service: str) -> Path:
    """Where ``service``'s workers keep their counts."""
    return Path(var_dir) / "run" / f"{service}-workers"


def clear(where: Path) -> None:
    """An empty folder: made if missing, every earlier worker's file removed."""
    where.mkdir(parents=True, exist_ok=True)
    for path in where.iterdir():
        path.unlink(missing_ok=True)


class Counter:
    """One worker's count, from 0, in ``where``/<pid>."""

    def __init__(self, where: Path, pid: int):
        self.path = where / str(pid)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.ftruncate(fd, SIZE)
            self._map = mmap.mmap(fd, SIZE)
        finally:
            os.close(fd)
        self.count = 0

    def add(self) -> None:
        self.count += 1
        self._map[:SIZE] = self.count.to_bytes(SIZE, "little")

    def remove(self) -> None:
        self._map.close()
        self.path.unlink(missing_ok=True)


def read(where: Path, pid: int) -> int | None:
    """The count worker ``pid`` keeps in ``where``; None when it keeps none (not started yet,
    gone, or a service without the hook). Read until two readings agree: a copy taken while the
    worker stored its count could hold half of each."""
    path, last = where / str(pid), None
    for _ in range(5):
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if len(data) != SIZE:
            return None
        if data == last:
            break
        last = data
    return int.from_bytes(data, "little")  # the last reading: the loop ends on it
