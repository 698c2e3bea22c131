"""A locustfile imported afresh in a Locust process that is already running, under a run's own
environment: make run's start form runs edX's 2015 client (EDX2015_LOCUSTFILE) this way, as
`make edx2015` with the form's values would have loaded it.

A client like the 2015 one reads its settings from os.environ when its modules are imported
(locustfiles/edx2015/config.py; edX's own reads them in its locustfile and helpers). So each
load forgets the client's own modules (those the last load brought in from outside the
standard library and the installed packages, and those of the client's folder that something
else imported before), and imports the locustfile with os.environ set to the run's
environment, for the duration of the import only; sys.path is put back as it was. The user
classes are the ones Locust's own loader picks (``load_locustfile``: its non-abstract User
classes). A load that fails raises ValueError with a message for the form; os.environ and
sys.path are as they were either way.
"""

import os
import sys
import sysconfig
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path

from locust.util.load_locustfile import load_locustfile

# Where the standard library and the installed packages are: never the client's own code.
INSTALLED = tuple(
    os.path.join(os.path.abspath(sysconfig.get_path(key)), "")
    for key in ("stdlib", "platstdlib", "purelib", "platlib")
)


class FreshLocustfile:
    """One client's locustfile (``name``: the variable that names it, for messages), loaded
    anew at each ``user_classes``."""

    def __init__(self, name: str):
        self.name = name
        self.brought_in: set[str] = set()  # the modules the last load imported

    def user_classes(self, path: Path, env: Mapping[str, str]) -> list[type]:
        """The User classes of the locustfile at ``path`` (absolute), imported with ``env`` as
        os.environ; ValueError says why there are none."""
        path = Path(os.path.abspath(path))
        if not path.is_file():
            raise ValueError(f"{self.name} names no file: {path}")
        self.forget(os.path.dirname(path))
        before = set(sys.modules)
        try:
            with environment(env), sys_path_kept():
                users, _ = load_locustfile(str(path))
        except (Exception, SystemExit) as exc:  # the client's own error, whatever it is
            raise ValueError(f"{self.name} {path} could not be loaded: {type(exc).__name__}: {exc}") from None
        finally:
            self.brought_in = set(sys.modules) - before
        if not users:
            raise ValueError(f"{self.name} {path} has no user class for Locust to run")
        return list(users.values())

    def forget(self, folder: str) -> None:
        """Drop the client's own modules, so that the next import runs their code again: those
        of ``folder``, and those the last load brought in from outside the standard library and
        the installed packages (which stay: an extension module cannot be loaded twice)."""
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if not file or os.path.abspath(file).startswith(INSTALLED):
                continue
            if name in self.brought_in or os.path.dirname(os.path.abspath(file)) == folder:
                del sys.modules[name]
        self.brought_in = set()


@contextmanager
def environment(env: Mapping[str, str]):
    """os.environ is ``env`` inside, and as it was again after."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextmanager
def sys_path_kept():
    """sys.path as it was after the block (Locust's loader adds the current folder; edX's
    client adds its helpers' folder)."""
    saved = list(sys.path)
    try:
        yield
    finally:
        sys.path[:] = saved
