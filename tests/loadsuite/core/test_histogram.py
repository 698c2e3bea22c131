"""Exact histograms: percentiles equal the nearest-rank percentiles of the raw values."""

import random

import pytest

from locustfiles.suite.core.histogram import PERCENTILES, Histogram, nearest_rank, to_ms


@pytest.mark.parametrize("seed", range(5))
def test_percentiles_equal_those_of_the_raw_values(seed):
    rng = random.Random(seed)
    values = [to_ms(rng.lognormvariate(4, 0.8)) for _ in range(rng.randint(1, 5000))]
    histogram = Histogram()
    for value in values:
        histogram.add(value)
    ordered = sorted(values)
    for p in (*PERCENTILES, 99.9):
        assert histogram.percentile(p) == nearest_rank(ordered, p)
    assert histogram.total == len(values)
    assert histogram.mean == pytest.approx(sum(values) / len(values))


def test_merging_equals_recording_everything_in_one():
    rng = random.Random(7)
    parts = [[rng.randint(1, 3000) for _ in range(500)] for _ in range(4)]
    merged = Histogram()
    for part in parts:
        one = Histogram()
        for value in part:
            one.add(value)
        merged.merge(Histogram.from_dict(one.to_dict()))  # as sent between Locust processes
    everything = sorted(v for part in parts for v in part)
    assert merged.percentiles() == {f"p{p}": nearest_rank(everything, p) for p in PERCENTILES}


def test_nearest_rank_on_a_small_sample():
    assert nearest_rank([10, 20, 30, 40], 50) == 20
    assert nearest_rank([10, 20, 30, 40], 51) == 30
    assert nearest_rank([10, 20, 30, 40], 100) == 40
    assert nearest_rank([], 50) is None
    assert Histogram().percentile(50) is None


def test_response_times_are_recorded_at_whole_milliseconds():
    assert [to_ms(t) for t in (0.4, 0.6, 12.49, 12.51)] == [0, 1, 12, 13]
