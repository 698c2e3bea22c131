"""What the driver did for one step's fault: the record the judge reads."""

from dataclasses import dataclass, field


@dataclass
class Event:
    """When the fault began and ended (Unix seconds), what the fault saw, or why it could not
    be injected."""

    fault: str
    started: float | None = None
    ended: float | None = None
    detail: dict = field(default_factory=dict)
    error: str | None = None
