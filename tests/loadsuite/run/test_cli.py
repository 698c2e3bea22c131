"""`python -m locustfiles.suite.run`: bad sizes are refused before anything starts, for every
profile, with the profile's own words (the chaos profile's plan is its faults' registry's)."""

import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from locustfiles.suite.run import cli
from locustfiles.suite.stack.commands import ROOT


@pytest.mark.parametrize(
    "profile, sizes, message",
    [
        ("chaos", {"FAULTS": "lms_down meteor"}, "unknown fault meteor"),
        (
            "ramp",
            {"STEP_SECONDS": "0"},
            "error: STEP_SECONDS: expects a whole number of seconds from 1 to 86400; got '0'",
        ),
        (
            "profile",
            {"SAMPLE_HZ": "fast"},
            "error: SAMPLE_HZ: expects a whole number of samples a second from 1 to 1000",
        ),
        (
            "ramp",
            {"WORKERS": "two"},
            "error: WORKERS: expects a whole number of Locust worker processes from 0 to 64; got 'two'",
        ),
        (
            "ramp",
            {"WORKERS": "-1"},
            "error: WORKERS: expects a whole number of Locust worker processes from 0 to 64; got '-1'",
        ),
        (
            "chaos",
            {"FAULT_SECONDS": "ten"},
            "error: FAULT_SECONDS: expects a whole number of seconds from 1 to 86400; got 'ten'",
        ),
        (
            "rpm",
            {"RPM": "inf"},
            "error: RPM: expects a number of purchases a minute from 1 to 60000; got 'inf'",
        ),
        (
            "rpm",
            {"RPM": "1e15"},
            "error: RPM: expects a number of purchases a minute from 1 to 60000; got '1e15'",
        ),
        (
            "smoke",
            {"USERS": "2 x"},
            "error: USERS: expects up to 100 whole numbers of users, each from 1 to 10000",
        ),
        ("soak", {"HOURS": "1000000", "BUCKET_SECONDS": "1"}, "error: HOURS: expects a number of hours"),
        (
            "soak",
            {"HOURS": "700", "BUCKET_SECONDS": "1"},
            "error: BUCKET_SECONDS: HOURS 700 in buckets of 1 s make",
        ),
        ("capacity", {"RPM_START": "1", "RPM_STEP": "1", "RPM_MAX": "1e9"}, "error: RPM_MAX: expects"),
        (
            "capacity",
            {"RPM_START": "1", "RPM_STEP": "1", "RPM_MAX": "60000"},
            "error: RPM_STEP: from 1 to 60000 by 1",
        ),
    ],
)
def test_bad_sizes_are_refused_before_anything_starts(monkeypatch, capsys, profile, sizes, message):
    for key, value in sizes.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(cli, "_prepare", _no_stack)
    assert cli.main([profile]) == 2
    assert message in capsys.readouterr().err


def _no_stack(*args):
    raise AssertionError("a bad size reached the stack's start")


# A Locust stand-in: ready once its pid file is there (renamed into place whole, as the
# follower's note is: the test reads each the moment it appears); told to stop (SIGINT, as
# _interrupt tells Locust), it writes the run's summary and ends, as Locust's master does once
# the report is out.
FAKE_LOCUST = """
import os, signal, sys, time
run_dir = sys.argv[1]
def told(signum, frame):
    open(os.path.join(run_dir, "summary.json"), "w").write("{}")
    sys.exit(0)
signal.signal(signal.SIGINT, told)
open(os.path.join(run_dir, "locust.pid.part"), "w").write(str(os.getpid()))
os.replace(os.path.join(run_dir, "locust.pid.part"), os.path.join(run_dir, "locust.pid"))
while True:
    time.sleep(0.1)
"""
# The command line's run, following that stand-in as it follows Locust, round after round
# (a fresh process a round would spend most of the test importing the report's plots).
FOLLOWER = """
import sys
from pathlib import Path
from locustfiles.suite.run import cli
for name in sys.argv[3:]:
    run_dir = Path(sys.argv[1]) / name
    run_dir.mkdir()
    stop = cli.Stop()
    stop.install()
    command = [sys.executable, "-c", sys.argv[2], str(run_dir)]
    code = cli._follow([(command, "locust.log")], {}, run_dir, True, lambda: None, stop)
    (run_dir / "followed.part").write_text(str(code))
    (run_dir / "followed.part").rename(run_dir / "followed")
"""
ROUNDS = 16


def test_a_second_stop_signal_during_the_first_still_stops_locust_and_waits_for_its_report(tmp_path):
    """They come in pairs: TERM to `make smoke`'s group reaches the run from the group and, a
    moment later, from make. A second one raised (as KeyboardInterrupt) while the first was
    being handled ended the run before it told Locust to stop, and Locust ran on (a fresh
    root's make test; a second TERM 0-400 µs after the first left it running 6 and 9 times in
    40, in fresh processes). Each round sends a pair 0-180 µs apart, each stop signal in turn;
    the window moves with the machine, so the test below holds the rule that closes it."""
    rounds = [str(i) for i in range(ROUNDS)]
    follower = subprocess.Popen(
        [sys.executable, "-c", FOLLOWER, str(tmp_path), FAKE_LOCUST, *rounds],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stderr=subprocess.PIPE,
        text=True,
    )
    locusts: list[psutil.Process] = []
    try:
        for i, name in enumerate(rounds):
            run_dir = tmp_path / name
            signum = sorted(cli.STOP_SIGNALS)[i % len(cli.STOP_SIGNALS)]
            apart = i * 12e-6
            wait_for_file(run_dir / "locust.pid", follower)
            locusts.append(psutil.Process(int((run_dir / "locust.pid").read_text())))
            time.sleep(0.1)  # following it
            os.kill(follower.pid, signum)
            sent = time.perf_counter()
            while time.perf_counter() - sent < apart:
                pass
            os.kill(follower.pid, signum)
            wait_for_file(run_dir / "followed", follower, (signal.Signals(signum).name, apart))
            assert (run_dir / "followed").read_text() == "0"  # the stand-in's exit: it reported
            assert (run_dir / "summary.json").exists()
            assert not locusts[-1].is_running() or locusts[-1].status() == psutil.STATUS_ZOMBIE
        assert follower.wait(30) == 0
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()
        for locust in locusts:
            try:
                locust.kill()
            except psutil.NoSuchProcess:
                pass


def wait_for_file(path, follower: subprocess.Popen, sent=None) -> None:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert follower.poll() is None, (sent, follower.stderr.read())
        assert time.monotonic() < deadline, (sent, path)
        time.sleep(0.01)


def test_a_stop_signal_is_noted_never_raised():
    """What closes that window: no stop signal raises anything, so none can interrupt the stop
    that another one asked for."""
    before = {signum: signal.getsignal(signum) for signum in cli.STOP_SIGNALS}
    stop = cli.Stop()
    try:
        stop.install()
        for signum in cli.STOP_SIGNALS:
            os.kill(os.getpid(), signum)  # raised, it would end this test as a KeyboardInterrupt
            time.sleep(0.01)  # its handler runs
        assert stop.asked
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
