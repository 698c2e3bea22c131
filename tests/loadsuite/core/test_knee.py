"""Issue 29, item 4: capacity finds the knee, not the step. The search (core/knee.py) halves the
interval between the rate that held and the one that broke; the plan is revised while the
run goes (core/plan.py revise), the same for every worker; the summary's capacity is the
highest rate that held below the lowest that broke (figures/results.py capacity_search)."""

import pytest

from locustfiles.suite.core import catalogue, knee, thresholds
from locustfiles.suite.core.plan import ArrivalClock, Plan, Step
from locustfiles.suite.figures import results


def climb(*rates, seconds=10) -> Plan:
    return catalogue.get("capacity").plan(
        {"RPM": " ".join(map(str, rates)), "STEP_SECONDS": str(seconds), "WARMUP_SECONDS": "0"}
    )


def test_a_revision_cuts_the_step_under_way_and_the_probes_follow_it():
    plan = climb(600, 1200, 1800)
    before = [plan.arrival_offset(k) for k in range(110)]  # 100 in the first step, 10 in the next
    plan.revise(
        13, [Step(0, 0, 10, target_rpm=900, label="probe"), Step(0, 0, 9, target_rpm=600, judged=False)]
    )
    assert [(s.index, s.start, s.seconds, s.target_rpm, s.judged) for s in plan.steps] == [
        (0, 0, 10, 600, True),
        (1, 10, 3, 1200, False),  # cut short at the boundary: it judges nothing
        (2, 13, 10, 900, True),
        (3, 23, 9, 600, False),
    ]
    # Every arrival due before the boundary keeps its time; the ones after follow the probe.
    assert [plan.arrival_offset(k) for k in range(110)] == pytest.approx(before)
    assert plan.arrival_offset(160) == pytest.approx(13 + 0.5 * 60 / 900)
    assert plan.users >= 1800 / 60 * 5  # enough users for every rate it ever had


def test_a_boundary_on_a_steps_end_cuts_nothing_and_an_empty_revision_ends_the_plan():
    plan = climb(600, 1200)
    plan.revise(10, [])
    assert [(s.seconds, s.judged) for s in plan.steps] == [(10, True)]
    assert plan.seconds == 10 and plan.arrival_offset(100) is None


def test_an_arrival_claimed_before_a_revision_is_due_by_the_revised_plan():
    plan = climb(600, 1200)
    clock = ArrivalClock(plan, t0=1000.0)
    for _ in range(130):
        k, due, _ = clock.claim_arrival(now=1000.0)
    assert (k, due) == (129, pytest.approx(1000 + 10 + 29.5 * 60 / 1200))  # 11.475 s: step 2
    plan.revise(11, [Step(0, 0, 10, target_rpm=300)])
    # The 30th arrival of the cut step is now the 10th of a step at 300 RPM: due later.
    assert clock.due(129) == pytest.approx(1000 + 11 + 9.5 * 60 / 300)
    plan.revise(11, [])
    assert clock.due(129) is None  # the plan ends before it: the user stops


def test_workers_that_adopt_a_revision_still_take_every_arrival_once():
    master = climb(600, 1200, 1800)
    master.revise(14, [Step(0, 0, 10, target_rpm=900), Step(0, 0, 9, target_rpm=600, judged=False)])
    total = sum(s.arrivals for s in master.steps)
    expected = sorted(round(master.arrival_offset(k), 6) for k in range(total))
    taken = []
    for index in range(3):
        worker = climb(600, 1200, 1800)
        worker.adopt(master.as_dict())
        clock = ArrivalClock(worker, 0.0, index, 3)
        while (due := clock.claim(now=0.0)[0]) is not None:
            taken.append(round(due, 6))
    assert sorted(taken) == expected


def test_the_search_halves_the_interval_until_it_is_narrower_than_the_resolution():
    found = knee.KneeSearch(step_seconds=20, grace=6, resolution=0.03)
    for rate, held in ((1800, True), (2400, True), (3000, False)):
        found.judged(rate, held)
    assert (found.lower, found.upper, found.done) == (2400, 3000, False)
    probes = []
    while not found.done:
        probe, hold = found.next_steps()
        assert (probe.seconds, probe.judged) == (20, True)
        assert (hold.target_rpm, hold.judged, hold.seconds) == (found.lower, False, 6 + knee.MARGIN + 2)
        probes.append(probe.target_rpm)
        found.judged(probe.target_rpm, probe.target_rpm <= 2750)  # the knee sits at 2750
    assert probes == [2700, 2850, 2775]
    assert (found.lower, found.upper) == (2700, 2775)  # 2.8 % apart, under 3 %


def test_the_search_is_done_when_the_first_rate_broke_and_ignores_a_rate_held_above_a_break():
    first = knee.KneeSearch(10, 2)
    first.judged(600, False)
    assert first.done and first.lower is None
    noisy = knee.KneeSearch(10, 2)
    for rate, held in ((600, True), (1200, False), (1800, True)):
        noisy.judged(rate, held)
    assert (noisy.lower, noisy.upper, noisy.done) == (600, 1200, False)
    every = knee.KneeSearch(10, 2)
    every.judged(600, True)
    assert not every.done and every.upper is None


def test_a_climb_that_held_goes_on_past_its_last_step_while_under_the_machines_ceiling():
    found = knee.KneeSearch(step_seconds=20, grace=6)
    following = found.climb_on(6000, 300, ceiling=6400)  # RPM_MAX 6000 held at 6000
    assert [(s.target_rpm, s.seconds, s.judged) for s in following] == [
        (6300, 20, True),
        (6300, 6 + knee.MARGIN + 2, False),  # held while 6300 is judged
    ]
    # 6600 would pass the ceiling: the ceiling itself is the next step, unless the last rate is
    # already within the resolution (3 %) of it
    assert [s.target_rpm for s in found.climb_on(6000, 600, ceiling=6511.7)] == [6511, 6511]
    assert found.climb_on(6300, 300, ceiling=6400) == []  # 6400 < 6300 x 1.03
    assert [s.target_rpm for s in found.climb_on(6200, 300, ceiling=6400.4)] == [6400, 6400]
    # under the ceiling a whole step is climbed whatever the resolution (KNEE_PCT=99: the climb alone)
    coarse = knee.KneeSearch(step_seconds=20, grace=6, resolution=0.99)
    assert [s.target_rpm for s in coarse.climb_on(6000, 300, ceiling=9000)] == [6300, 6300]
    assert coarse.climb_on(6000, 600, ceiling=6500) == []
    assert found.climb_on(6000, None, ceiling=9000) == []  # a listed plan: the user's rates
    assert found.climb_on(6000, 300, ceiling=None) == []  # the machine's CPU was not read
    bounded = knee.KneeSearch(20, 6)
    steps = [bounded.climb_on(300 * n, 300, ceiling=1e9) for n in range(knee.MAX_CLIMB_ON + 1)]
    assert all(steps[:-1]) and steps[-1] == []


def test_a_ranged_capacity_plan_climbs_on_by_its_step_and_a_listed_one_does_not():
    capacity = catalogue.get("capacity")
    assert capacity.increment({"RPM_START": "300", "RPM_STEP": "600"}) == 600
    assert capacity.increment({"RPM": "600 1200"}) is None


def test_the_search_ends_after_its_bound_of_probes():
    found = knee.KneeSearch(10, 2, resolution=0.0001)
    found.judged(1000, True)
    found.judged(2000, False)
    for _ in range(knee.MAX_PROBES):
        found.judged(found.next_steps()[0].target_rpm, True)
    assert found.done and found.probes == knee.MAX_PROBES


def row(index, rate, p95, judged=True) -> dict:
    out = {"index": index, "target_rpm": rate, "requests": 100, "p95": p95}
    return out if judged else {**out, "judged": False}


def test_capacity_is_the_highest_rate_held_below_the_lowest_that_broke():
    rules = thresholds.parse("p95<460")
    rows = [
        row(0, 1800, 100),
        row(1, 2400, 200),
        row(2, 3000, 900),  # the climb broke here
        row(3, 3600, 990, judged=False),  # under way when it was judged: cut short
        row(4, 2700, 300),  # probe: held
        row(5, 2400, 150, judged=False),  # the rate that held, held while the probe was judged
        row(6, 2850, 500),  # probe: broke
        row(7, 2700, 150, judged=False),
    ]
    found = results.capacity_search(rows, rules)
    assert found["held"] == [True, True, False, None, True, None, False, None]
    assert found["capacity_rpm"] == 2700
    assert found["search"] == {
        "interval_rpm": [2700, 2850],
        "interval_pct": 5.6,
        "probes": 2,
        "broke_step": 6,
    }


def test_a_climb_that_never_broke_has_no_interval_and_one_that_broke_first_no_capacity():
    rules = thresholds.parse("p95<460")
    held = results.capacity_search([row(0, 600, 10), row(1, 1200, 20), row(2, 1200, 30, judged=False)], rules)
    assert held["capacity_rpm"] == 1200
    assert held["search"] == {"interval_rpm": None, "interval_pct": None, "probes": 0, "broke_step": None}
    broke = results.capacity_search([row(0, 600, 900), row(1, 1200, 990)], rules)
    assert broke["capacity_rpm"] is None
    assert broke["search"]["broke_step"] == 0 and broke["search"]["interval_rpm"] is None


def test_a_knee_narrower_than_100_percent_is_asked_for_before_the_run():
    with pytest.raises(ValueError, match="^KNEE_PCT: expects a number of percent from 0.1 to 99; got '100'$"):
        catalogue.get("capacity").plan({"RPM": "600 1200", "KNEE_PCT": "100"})
    with pytest.raises(ValueError, match="^KNEE_PCT: expects"):
        catalogue.get("capacity").plan({"RPM": "600 1200", "KNEE_PCT": "0"})
