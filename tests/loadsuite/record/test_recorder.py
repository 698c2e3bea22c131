"""The recorder: what workers send merges into the same steps as a single process records."""

import random

from locustfiles.suite import profiles
from locustfiles.suite.core.plan import ArrivalSchedule
from locustfiles.suite.figures import results
from locustfiles.suite.record.recorder import EXAMPLES, EndpointStats, Recorder, Timeline

BASKET = "/api/commerce/v0/baskets/"


def requests(seed=1, count=2000, t0=1000):
    rng = random.Random(seed)
    return [(t0 + rng.uniform(-2, 32), rng.uniform(5, 900), rng.random() > 0.05) for _ in range(count)]


def test_worker_reports_merge_into_the_same_steps_as_one_process():
    p = profiles.get("ramp").plan({"USERS": "1 2 3", "STEP_SECONDS": "10"})
    single = Recorder(p)
    single.t0 = 1000
    workers = [Recorder(p) for _ in range(3)]
    master = Recorder(p)
    master.t0 = 1000
    for i, (start, rt, ok) in enumerate(requests()):
        single.request(BASKET, start, rt, ok, 201 if ok else 500)
        workers[i % 3].request(BASKET, start, rt, ok, 201 if ok else 500)
        if i % 50 == 0:  # reports arrive while the run goes on
            for worker in workers:
                master.absorb(worker.drain())
    for worker in workers:
        master.absorb(worker.drain())
    single.fold_local()
    for index in range(3):
        a, b = single.steps[index].endpoints[BASKET], master.steps[index].endpoints[BASKET]
        assert a.histogram.counts == b.histogram.counts
        assert (a.failures, a.statuses) == (b.failures, b.statuses)
    assert single.outside_plan[BASKET].histogram.total == master.outside_plan[BASKET].histogram.total > 0


def test_missed_arrivals_go_to_the_step_they_were_due_in():
    p = profiles.get("capacity").plan({"RPM": "60 120", "STEP_SECONDS": "10", "WARMUP_SECONDS": "0"})
    recorder = Recorder(p)
    recorder.t0 = 1000
    recorder.missed([1001.5, 1012.5, 1013.5])
    recorder.fold_local()
    assert (recorder.steps[0].missed, recorder.steps[1].missed) == (1, 2)


def test_a_worker_forgets_what_it_sent():
    recorder = Recorder(profiles.get("smoke").plan({}))
    recorder.request(BASKET, 1000.2, 12.0, True, 201)
    recorder.answered("100001", 1000.2)
    first = recorder.drain()
    assert first["answered"] == ["100001 1000"] and first["seconds"]
    assert recorder.drain() == {"seconds": {}, "missed": {}, "answered": [], "examples": {}}


def test_failure_examples_are_capped():
    recorder = Recorder(profiles.get("smoke").plan({}))
    for i in range(10):
        recorder.example(BASKET, 503, f"busy {i}")
    master = Recorder(recorder.plan)
    master.absorb(recorder.drain())
    assert master.examples == {f"{BASKET} 503": [f"busy {i}" for i in range(EXAMPLES)]}


def test_a_step_notes_the_seconds_it_was_disturbed():
    p = profiles.get("chaos").plan({"FAULTS": "lms_down worker_kill", "PHASE_SECONDS": "10"})
    recorder = Recorder(p)
    recorder.t0 = 1000
    recorder.request(BASKET, 1001.5, 30.0, True, 201)
    recorder.request(BASKET, 1003.2, 30.0, True, 202)  # placed, enrollment failed
    recorder.request(BASKET, 1005.9, 30.0, True, 202)
    recorder.request(BASKET, 1006.1, 30.0, True, 201)
    recorder.request("/auto_auth", 1014.0, 3.0, False, 503)
    recorder.fold_local()
    assert (recorder.steps[0].degraded_from, recorder.steps[0].degraded_to) == (1003, 1005)
    assert (recorder.steps[1].degraded_from, recorder.steps[1].degraded_to) == (1014, 1014)


def test_server_timings_sent_by_workers_average_per_step_as_in_one_process():
    p = profiles.get("ramp").plan({"USERS": "1 2", "STEP_SECONDS": "10"})
    single, master = Recorder(p), Recorder(p)
    single.t0 = master.t0 = 1000
    workers = [Recorder(p), Recorder(p)]
    answers = [
        (1001.0, {"db": 4.0, "total": 30.0}),
        (1002.0, {"db": 6.0, "total": 50.0, "ecommerce-lms": 9.0}),
        (1003.0, None),  # an answer without the header (a failure before the service)
        (1012.0, {"db": 10.0, "total": 20.0}),
    ]
    for i, (start, timings) in enumerate(answers):
        single.request(BASKET, start, 40.0, True, 201, timings)
        workers[i % 2].request(BASKET, start, 40.0, True, 201, timings)
    for worker in workers:
        master.absorb(worker.drain())
    single.fold_local()
    for recorder in (single, master):
        first, second = (recorder.steps[i].endpoints[BASKET] for i in (0, 1))
        # Each entry's mean is over the answers that carried it.
        assert first.timing_means() == {"db": 5.0, "ecommerce-lms": 9.0, "total": 40.0}
        assert second.timing_means() == {"db": 10.0, "total": 20.0}


def open_plan():
    return profiles.get("capacity").plan({"RPM": "60 120", "STEP_SECONDS": "10", "WARMUP_SECONDS": "0"})


def journey(recorder, due, login_start, login_ms=30.0, purchase_ms=20.0, gap=0.001):
    """An arrival due at ``due`` whose learner logged in at ``login_start``, then bought."""
    schedule = ArrivalSchedule(due)
    recorder.request("/auto_auth", login_start, login_ms, True, 201, schedule=schedule)
    purchase_start = login_start + login_ms / 1000 + gap
    recorder.request(BASKET, purchase_start, purchase_ms, True, 201, schedule=schedule)


def test_a_late_send_shows_in_the_latency_from_the_schedule_not_in_the_sent_latency():
    recorder = Recorder(open_plan())
    recorder.t0 = 1000
    journey(recorder, due=1002.0, login_start=1002.0)  # on time
    journey(recorder, due=1003.0, login_start=1003.5)  # waited 500 ms for a free user
    recorder.fold_local()
    order = recorder.steps[0].endpoints[BASKET]
    assert sorted(order.histogram.counts.elements()) == [20, 20]
    # The login's own 30 ms is the login's latency, not the purchase's: on time, the purchase's
    # latency from the schedule is its own (and the 1 ms between the two requests).
    assert sorted(order.from_schedule.counts.elements()) == [21, 521]
    assert recorder.steps[0].endpoints["/auto_auth"].from_schedule.total == 0  # the order endpoint's only


def test_the_latency_from_the_schedule_is_kept_by_the_step_the_arrival_was_due_in():
    recorder = Recorder(open_plan())
    recorder.t0 = 1000
    journey(recorder, due=1009.9, login_start=1010.2)  # due in step 1, sent in step 2
    recorder.fold_local()
    first, second = recorder.steps[0].endpoints[BASKET], recorder.steps[1].endpoints[BASKET]
    assert (first.histogram.total, second.histogram.total) == (0, 1)
    assert (first.from_schedule.total, second.from_schedule.total) == (1, 0)
    assert list(first.from_schedule.counts) == [321]
    plan = recorder.plan
    rows = results.step_rows(plan, recorder.steps, {})
    assert rows[0]["from_schedule"] == {"p50": 321, "p95": 321, "p99": 321, "samples": 1}
    assert rows[1]["from_schedule"] == {"p50": None, "p95": None, "p99": None, "samples": 0}
    assert rows[1]["p95"] == 20
    assert results.overall_row(plan, recorder.steps)["from_schedule"]["samples"] == 1


def test_workers_ship_the_latency_from_the_schedule_and_only_when_there_is_one():
    plan = open_plan()
    single, master, workers = Recorder(plan), Recorder(plan), [Recorder(None), Recorder(None)]
    single.t0 = master.t0 = 1000
    for i in range(40):
        due = 1000.25 + i / 2
        for recorder in (single, workers[i % 2]):
            journey(recorder, due, login_start=due + (i % 7) / 10, purchase_ms=10.0 + i)
    reports = [worker.drain() for worker in workers]
    # Sent with the same histogram encoding, only by the endpoint that has one (small messages).
    sent = [
        (name, stats) for r in reports for second in r["seconds"].values() for name, stats in second.items()
    ]
    assert {name for name, stats in sent if "from_schedule" in stats} == {BASKET}
    assert all(
        set(stats["from_schedule"]) <= set(map(str, range(10, 800)))
        for _, stats in sent
        if "from_schedule" in stats
    )
    for report in reports:
        master.absorb(report)
    single.fold_local()
    for index in (0, 1):
        a, b = single.steps[index].endpoints[BASKET], master.steps[index].endpoints[BASKET]
        assert a.from_schedule.counts == b.from_schedule.counts and a.from_schedule.total == 20


def test_closed_model_rows_have_no_latency_from_the_schedule():
    plan = profiles.get("ramp").plan({"USERS": "1 2", "STEP_SECONDS": "10"})
    recorder = Recorder(plan)
    recorder.t0 = 1000
    recorder.request(BASKET, 1001.0, 30.0, True, 201)
    sent = recorder.drain()
    assert (
        "histogram" in sent["seconds"]["1001"][BASKET]
        and "from_schedule" not in sent["seconds"]["1001"][BASKET]
    )
    recorder.absorb(sent)
    assert "from_schedule" not in results.step_rows(plan, recorder.steps, {})[0]
    assert "from_schedule" not in results.overall_row(plan, recorder.steps)


def test_the_timeline_shares_the_machines_busy_time_among_the_seconds_it_covers():
    timeline = Timeline(BASKET)
    timeline.machine(-0.5, 0.5, 1.0)  # before the run's start: only its half after t0 counts
    timeline.machine(0.5, 1.5, 1.8)  # 0.9 s busy in each of seconds 0 and 1 ...
    timeline.machine(1.5, 2.0, 0.5)  # ... and 0.5 s in the second half of second 1
    points = {p["t"]: p for p in timeline.points()}
    assert points[0]["machine_cpu_percent"] == round(100 * (0.5 + 0.9) / 1.0, 1)
    assert points[1]["machine_cpu_percent"] == round(100 * (0.9 + 0.5) / 1.0, 1)


def test_the_timeline_counts_shed_requests_and_keeps_the_machine_through_coarsening():
    timeline = Timeline(BASKET, limit=4)
    for second in range(8):
        stats = EndpointStats()
        stats.record(20, ok=True, status=201)
        stats.record(3, ok=False, status=503, refusal="overloaded")
        stats.record(4, ok=False, status=503, refusal="ecommerce_unavailable: overloaded")
        stats.record(5, ok=False, status=429, refusal="too_many_requests")  # refused, not shed
        timeline.add(second, BASKET, stats)
        timeline.machine(second, second + 1, 1.0 + second / 10)
    never_read = Timeline(BASKET)
    never_read.add(0, BASKET, stats)
    points = timeline.points()
    assert timeline.bucket_seconds == 2
    assert [p["shed"] for p in points] == [4, 4, 4, 4]
    assert [p["machine_cpu_percent"] for p in points] == [105.0, 125.0, 145.0, 165.0]
    assert never_read.points()[0]["machine_cpu_percent"] is None


def test_the_machine_read_now_and_then_fills_the_seconds_between_readings():
    timeline = Timeline(BASKET)
    timeline.read_machine(0.0, 1000.0)  # the first reading: a baseline only
    timeline.read_machine(1.0, None)  # not read this time
    timeline.read_machine(2.0, 1003.0)  # 3 s busy over 2 s: 150 % in each
    assert [p["machine_cpu_percent"] for p in timeline.points()] == [150.0, 150.0]
