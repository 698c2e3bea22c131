"""figures/shed_seconds.py: each shed request beside how busy the machine was in its second."""

from locustfiles.suite.figures.shed_seconds import shed_by_machine


def point(t, shed, machine):
    return {"t": t, "shed": shed, "machine_cpu_percent": machine}


def test_shed_requests_are_judged_by_the_machine_in_their_own_second():
    timeline = {
        "bucket_seconds": 1,
        "points": [
            point(0, 0, 50.0),
            point(1, 3, 150.0),  # 75 % of two cores: more than 10 % to spare
            point(2, 5, 195.0),  # full
            point(3, 2, 179.0),  # 89.5 %: to spare
            point(4, 1, None),  # not read
            point(5, 4, 180.0),  # 90 %: not to spare
        ],
    }
    found = shed_by_machine(timeline, cores=2)
    assert found["busy_limit_cpu_percent"] == 180.0
    assert (found["shed"], found["unmeasured"]) == (15, 1)
    assert (found["with_cpu_to_spare"], found["seconds_with_cpu_to_spare"]) == (5, 2)
    assert found["first_with_cpu_to_spare"] == {"t": 1, "shed": 3, "machine_cpu_percent": 150.0}
    assert found["least_busy_cpu_percent"] == 150.0


def test_nothing_shed_on_a_full_machine_has_nothing_to_spare():
    found = shed_by_machine({"bucket_seconds": 2, "points": [point(0, 2, 390.0), point(2, 0, 20.0)]}, cores=4)
    assert (found["shed"], found["with_cpu_to_spare"], found["first_with_cpu_to_spare"]) == (2, 0, None)
    assert found["resolution_seconds"] == 2 and found["least_busy_cpu_percent"] == 390.0


def test_a_machine_never_read_or_of_unknown_cores_gives_no_figure():
    assert shed_by_machine({"bucket_seconds": 1, "points": [point(0, 3, None)]}, cores=2) is None
    assert shed_by_machine({"bucket_seconds": 1, "points": [point(0, 3, 100.0)]}, cores=None) is None
    assert shed_by_machine({}, cores=2) is None
