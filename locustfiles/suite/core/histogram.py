"""Exact response-time histograms.

Locust rounds response times into roughly two significant digits before computing
percentiles. Here every response time is kept at millisecond resolution (a count per whole
millisecond), so a percentile is exact for the recorded values, histograms of several Locust
workers merge by adding counts, and the size stays bounded by the spread of response times,
not by the number of requests.
"""

from collections import Counter

PERCENTILES = (50, 66, 75, 80, 90, 95, 98, 99, 100)
PERCENTILE_KEYS = tuple(f"p{p}" for p in PERCENTILES)  # a row's keys for them: p50 ... p100


def to_ms(response_time: float) -> int:
    """The millisecond a response time is recorded at (Locust reports float milliseconds)."""
    return int(round(response_time))


def nearest_rank(sorted_values: list[int], percentile: float) -> int | None:
    """The smallest recorded value with at least ``percentile`` % of values at or below it."""
    if not sorted_values:
        return None
    rank = max(1, -(-len(sorted_values) * percentile // 100))  # ceil without floats
    return sorted_values[int(rank) - 1]


class Histogram:
    __slots__ = ("counts", "total", "sum")

    def __init__(self, counts: dict | None = None):
        self.counts: Counter[int] = Counter()
        self.total = 0
        self.sum = 0
        if counts:
            for value, count in counts.items():
                self.add(int(value), int(count))

    def add(self, value_ms: int, count: int = 1) -> None:
        self.counts[value_ms] += count
        self.total += count
        self.sum += value_ms * count

    def merge(self, other: "Histogram") -> "Histogram":
        for value, count in other.counts.items():
            self.add(value, count)
        return self

    def percentile(self, percentile: float) -> int | None:
        """Nearest-rank percentile, the same definition as ``nearest_rank`` on the raw values."""
        if not self.total:
            return None
        rank = max(1, -(-self.total * percentile // 100))
        seen = 0
        for value in sorted(self.counts):
            seen += self.counts[value]
            if seen >= rank:
                return value
        return max(self.counts)

    def percentiles(self, which=PERCENTILES) -> dict[str, int | None]:
        return {f"p{p}": self.percentile(p) for p in which}

    @property
    def mean(self) -> float | None:
        return self.sum / self.total if self.total else None

    def to_dict(self) -> dict[str, int]:
        """JSON-friendly (string keys) and compact."""
        return {str(value): count for value, count in self.counts.items()}

    @classmethod
    def from_dict(cls, data: dict) -> "Histogram":
        return cls(data)

    def __len__(self) -> int:
        return self.total
