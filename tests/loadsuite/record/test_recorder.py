"""The recorder: what workers send merges into the same steps as a single process records."""

import random

from locustfiles.suite import profiles
from locustfiles.suite.record.recorder import EXAMPLES, Recorder

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
