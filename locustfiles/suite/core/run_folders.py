"""Where runs keep what they write: <VAR_DIR>/runs/<stamp>-<name>/, for a load run, a
comparison (compare) or scripts/config_matrix.py (matrix). Standard library only, so that the
run, the report and the scripts name these folders alike."""

import datetime
from pathlib import Path


def runs(var_dir: str | Path) -> Path:
    """The folder that holds every run's folder."""
    return Path(var_dir) / "runs"


def stamped(parent: Path, name: str) -> Path:
    """<parent>/<stamp>-<name>, stamped now to the second (not made)."""
    return parent / f"{datetime.datetime.now():%Y%m%d-%H%M%S}-{name}"
