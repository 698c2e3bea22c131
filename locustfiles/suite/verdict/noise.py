"""The noise floor: when a change between two figures is a real one. Findings and comparisons
must agree on it: a change is significant at NOISE_PCT % and NOISE_MS ms at least (two runs of
one configuration on this machine differed by up to about 8 %, docs/decisions/README.md)."""

from common.environment import get

NOISE_PCT = get("NOISE_PCT", {})  # their defaults: common/environment/judging.py
NOISE_MS = get("NOISE_MS", {})


def delta(a, b, noise_pct: float = NOISE_PCT, noise_ms: float = NOISE_MS) -> dict:
    """B - A in ms and in %, and whether it is beyond the noise floor."""
    if a is None or b is None:
        return {"a": a, "b": b, "ms": None, "pct": None, "significant": False}
    ms = b - a
    pct = round(100 * ms / a, 1) if a else None
    significant = pct is not None and abs(pct) >= noise_pct and abs(ms) >= noise_ms
    return {"a": a, "b": b, "ms": round(ms, 1), "pct": pct, "significant": significant}
