"""The run folder: var/runs/<stamp>-<profile>/ (or the one --suite-run-dir names), and a
hand-made run's name once it is known what ran."""

from pathlib import Path

from locustfiles.suite.core import run_folders
from locustfiles.suite.core.summary import Summary


def new_run_dir(given: str, runs: Path, profile: str) -> Path:
    """``given`` if it holds no finished run yet, else a new <stamp>-<profile> beside it (or
    under ``runs`` when none was given): another test of the same web UI session."""
    if given and not (Path(given) / "summary.json").exists():
        folder = Path(given)
    else:
        first = run_folders.stamped(Path(given).parent if given else runs, profile)
        folder, suffix = first, 1
        while folder.exists():
            suffix += 1
            folder = first.with_name(f"{first.name}-{suffix}")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def rename_for(run_dir: Path, summary: Summary) -> Path:
    """A hand-made run's folder says what ran: <stamp>-manual-3-users, or 1-to-5-users."""
    # A hand-made run is closed-model: every step names its users (None only in an open model).
    counts = [n for row in summary["steps"] if (n := row["users"]) is not None]
    if not counts:  # stopped before its first step: nothing to name it by
        return run_dir
    users = f"{counts[0]}" if len(set(counts)) == 1 else f"{min(counts)}-to-{max(counts)}"
    target = run_dir.with_name(f"{run_dir.name}-{users}-user{'s' if counts != [1] else ''}")
    if target.exists():
        return run_dir
    run_dir.rename(target)
    return target
