"""How a load run is judged: its thresholds, and the noise floor under which a difference
between two runs is not called significant (docs/load-runs.md)."""

from common.environment.model import Section, Variable

SECTION = Section(
    "Thresholds and the noise floor",
    (
        Variable(
            "THRESHOLDS",
            None,
            "str",
            "k6-style rules, e.g. `p95<460 errors<0.01 missed<0.01`; metrics p50…p100, mean, errors, "
            "missed, rpm, rps, unshed (failures that were not a JSON 503 or 429, as a share of all requests)",
            shown="per profile (`make help`)",
        ),
        Variable(
            "NOISE_PCT",
            "10",
            "float",
            "a difference between two runs is significant beyond this many percent (and NOISE_MS)",
        ),
        Variable("NOISE_MS", "5", "float", "… and beyond this many milliseconds"),
    ),
)
