"""Plans: steps of each profile, arrivals on the clock, and their split between workers."""

import pytest

from locustfiles.suite.core import catalogue, plan


def test_ramp_has_one_step_per_user_count():
    p = catalogue.get("ramp").plan({"USERS": "1 2 5", "STEP_SECONDS": "30"})
    assert [(s.start, s.seconds, s.users) for s in p.steps] == [(0, 30, 1), (30, 30, 2), (60, 30, 5)]
    assert (p.open_model, p.users, p.seconds) == (False, 5, 90)


def test_the_ramp_default_is_edx_round_0():
    p = catalogue.get("ramp").plan({})
    assert [s.users for s in p.steps] == list(range(1, 11))
    assert p.steps[0].seconds == 60


def test_rpm_schedules_arrivals_evenly_on_the_clock():
    p = catalogue.get("rpm").plan({"RPM": "78", "DURATION": "600"})
    assert p.steps[0].arrivals == 780
    offsets = [p.arrival_offset(k) for k in range(780)]
    assert offsets[0] == pytest.approx(600 / 780 / 2)
    assert all(b - a == pytest.approx(600 / 780) for a, b in zip(offsets, offsets[1:], strict=False))
    assert p.arrival_offset(780) is None


def test_capacity_steps_from_a_list_or_a_range():
    listed = catalogue.get("capacity").plan({"RPM": "600 900 1200", "STEP_SECONDS": "10"})
    assert [s.target_rpm for s in listed.measured if s.judged] == [600, 900, 1200]
    ranged = catalogue.get("capacity").plan({"RPM_START": "300", "RPM_STEP": "300", "RPM_MAX": "1500"})
    assert [s.target_rpm for s in ranged.measured if s.judged] == [300, 600, 900, 1200, 1500]
    # The last rate is held, judging nothing, while the last step is judged: its grace, then the
    # margin a revision of the plan starts ahead, then two seconds to spare.
    tail = listed.steps[-1]
    assert (tail.judged, tail.target_rpm, tail.start, tail.seconds) == (False, 1200, 60 + 30, 5 + 2 + 2)
    assert ranged.users >= 1500 / 60 * 5


def test_soak_buckets_cover_the_hours_with_a_short_last_one():
    p = catalogue.get("soak").plan({"HOURS": "0.5", "BUCKET_SECONDS": "700"})
    assert [s.seconds for s in p.measured] == [700, 700, 400]
    assert {s.target_rpm for s in p.steps} == {1038}


def test_capacity_and_soak_begin_with_a_warm_up_at_their_first_rate():
    capacity = catalogue.get("capacity").plan({"RPM": "600 900", "STEP_SECONDS": "10"})
    warm = capacity.steps[0]
    assert (warm.warm_up, warm.label, warm.start, warm.seconds, warm.target_rpm) == (
        True,
        "warm-up",
        0,
        60,
        600,
    )
    assert capacity.warm_up is warm
    # The measured steps follow it, with their own lengths and rates.
    assert [(s.index, s.start, s.seconds, s.target_rpm) for s in capacity.measured] == [
        (1, 60, 10, 600),
        (2, 70, 10, 900),
        (3, 80, 9, 900),  # held while the last step is judged
    ]
    assert capacity.seconds == 89
    # Its arrivals come first: 600 per minute for a minute, then the steps'.
    assert capacity.arrival_offset(599) < 60 < capacity.arrival_offset(600)
    soak = catalogue.get("soak").plan({"HOURS": "0.5", "BUCKET_SECONDS": "900", "WARMUP_SECONDS": "120"})
    assert [(s.label, s.start, s.target_rpm) for s in soak.steps] == [
        ("warm-up", 0, 1038),
        ("bucket 1", 120, 1038),
        ("bucket 2", 1020, 1038),
    ]


def test_no_warm_up_when_asked_for_none_and_by_default_for_rpm():
    assert catalogue.get("capacity").plan({"RPM": "600 900", "WARMUP_SECONDS": "0"}).warm_up is None
    assert catalogue.get("soak").plan({"HOURS": "1", "WARMUP_SECONDS": "0"}).steps[0].label == "bucket 1"
    assert catalogue.get("rpm").plan({}).warm_up is None
    assert catalogue.get("rpm").plan({"WARMUP_SECONDS": "30"}).steps[0].warm_up
    with pytest.raises(ValueError, match="WARMUP_SECONDS"):
        catalogue.get("soak").plan({"WARMUP_SECONDS": "-1"})


def test_a_second_belongs_to_the_step_it_falls_in():
    p = catalogue.get("ramp").plan({"USERS": "1 2", "STEP_SECONDS": "10"})
    assert [p.step_index(t) for t in (-0.5, 0, 9.99, 10, 19.99, 20)] == [None, 0, 0, 1, 1, None]


@pytest.mark.parametrize("bad", [{"USERS": "0"}, {"USERS": "a"}, {"STEP_SECONDS": "0"}])
def test_bad_sizes_are_refused(bad):
    with pytest.raises(ValueError):
        catalogue.get("ramp").plan(bad)


def test_unknown_profile_is_refused():
    with pytest.raises(ValueError):
        catalogue.get("marathon").plan({})


def claimed_offsets(p, t0, workers):
    """Run every worker's clock to the end of the plan (never late); the due offsets taken."""
    taken = []
    for index in range(workers):
        clock = plan.ArrivalClock(p, t0, index, workers)
        while (due := clock.claim(now=0.0)[0]) is not None:
            taken.append(round(due - t0, 6))
    return taken


def test_workers_together_take_every_arrival_exactly_once():
    p = catalogue.get("capacity").plan({"RPM": "600 1200", "STEP_SECONDS": "10"})
    arrivals = sum(s.arrivals for s in p.steps)
    assert arrivals == 600 + 100 + 200 + 180  # the warm-up's minute, the steps, 9 s held at the last
    expected = sorted(round(p.arrival_offset(k), 6) for k in range(arrivals))
    for workers in (1, 2, 3):
        assert sorted(claimed_offsets(p, 1000.0, workers)) == expected


def test_late_arrivals_are_missed_not_made_up():
    p = catalogue.get("rpm").plan({"RPM": "60", "DURATION": "10"})  # one arrival per second
    clock = plan.ArrivalClock(p, t0=1000.0)
    due, missed = clock.claim(now=1005.4)  # the users were all busy until 5.4 s
    assert missed == [1000.5, 1001.5, 1002.5, 1003.5]  # more than a second late
    assert due == 1004.5  # within the tolerance: still run
    due, missed = clock.claim(now=1005.4)
    assert (due, missed) == (1005.5, [])


def test_each_claimed_arrival_names_its_index_in_the_whole_plan():
    """The learners' mix picks the paid journey by that index, so it must be the plan's, the
    same whichever worker takes the arrival, and a missed arrival's index is skipped with it."""
    p = catalogue.get("rpm").plan({"RPM": "60", "DURATION": "10"})
    taken = []
    for index in range(2):
        clock = plan.ArrivalClock(p, 1000.0, index, 2)
        while (arrival := clock.claim_arrival(now=0.0))[0] is not None:
            taken.append(arrival[:2])
    assert sorted(taken) == [(k, 1000.0 + p.arrival_offset(k)) for k in range(10)]
    late = plan.ArrivalClock(p, t0=1000.0)
    assert late.claim_arrival(now=1005.4) == (4, 1004.5, [1000.5, 1001.5, 1002.5, 1003.5])


def test_a_written_plan_starts_on_the_next_whole_second_and_ignores_the_user_count():
    p = catalogue.get("ramp").plan({"USERS": "1 2", "STEP_SECONDS": "10"})
    assert p.t0_for(1000.2, users=7) == 1001.0
    # An open model's users are made first: its first step starts two seconds later.
    assert catalogue.get("rpm").plan({}).t0_for(1000.2, users=7) == 1003.0
    assert [p.step_end(0), p.step_end(1)] == [10, 20]
    p.follow(7, 3.0)
    p.stop(5.0)
    assert [(s.start, s.seconds, s.users) for s in p.steps] == [(0, 10, 1), (10, 10, 2)]
    assert p.step_count == 2 and not p.follows_users


def test_a_live_plan_starts_in_its_whole_second_and_follows_the_user_count():
    p = plan.LivePlan()
    assert p.t0_for(1000.4, users=3) == 1000.0
    assert p.step_end(0) == float("inf")  # the last step ends when the run stops
    p.follow(1, 6.3)
    assert [(s.start, s.users) for s in p.steps] == [(0, 3), (7, 1)]
    assert p.step_end(0) == 7 and p.step_end(1) == float("inf")
    p.stop(10.5)
    assert p.seconds == 10.5 and p.step_count is None and p.follows_users
