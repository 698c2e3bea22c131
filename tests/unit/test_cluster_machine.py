"""The machine the cluster acts on (stack/cluster/machine.py), on real processes: exit statuses as
the shell gave them, output passed on, filtered, teed or dropped, background children that a
Ctrl-C in the terminal does not end, and SIGINT or SIGTERM deferred until the running program
has ended. The lookups by network namespace are in test_cluster_down.py."""

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from stack.cluster.machine import Interrupted, Machine, shell_status
from stack.processes import StepFailed


def test_a_status_is_the_shells_128_plus_the_signal_for_a_program_a_signal_ended():
    assert (shell_status(0), shell_status(3), shell_status(-signal.SIGTERM)) == (0, 3, 143)
    machine = Machine()
    assert machine.call(["sh", "-c", "kill -TERM $$"]) == 143
    assert machine.call(["sh", "-c", "exit 7"]) == 7
    with pytest.raises(StepFailed) as failed:
        machine.step(["sh", "-c", "exit 5"])
    assert failed.value.returncode == 5


def test_a_program_that_is_not_there_fails_with_127_as_in_the_shell(capsys):
    assert Machine().call(["no-such-program-of-the-cluster"]) == 127
    assert capsys.readouterr().err == "no-such-program-of-the-cluster: No such file or directory\n"
    assert Machine().output(["no-such-program-of-the-cluster"])[0] == 127


def test_output_is_passed_on_captured_filtered_or_teed(tmp_path, capfd):
    machine = Machine()
    assert machine.output(["sh", "-c", "echo listed; exit 1"]) == (1, "listed\n")
    assert machine.succeeds(["sh", "-c", "echo hidden; echo hidden >&2"])
    noisy = ["sh", "-c", "echo kept; echo 'wheel x is ignored' >&2; echo 'also kept' >&2; exit 4"]
    assert machine.filtered(noisy, drop="is ignored") == 4
    log = tmp_path / "deploy.log"
    assert machine.teed(["sh", "-c", "echo play; echo warning >&2"], str(log)) == 0
    assert machine.teed(["sh", "-c", "exit 2"], str(tmp_path / "second.log")) == 2
    out, err = capfd.readouterr()
    assert (out, err) == ("kept\nalso kept\nplay\n", "warning\n")
    assert log.read_text() == "play\n"


def test_nothing_is_shown_while_quiet(capfd):
    machine = Machine()
    with machine.quietly():
        machine.call(["sh", "-c", "echo out; echo err >&2"])
        machine.output(["sh", "-c", "echo err >&2"])
        print("said", file=sys.stderr)
    machine.call(["sh", "-c", "echo after"])
    assert capfd.readouterr() == ("after\n", "")


def signal_mask(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1], 16)
    raise AssertionError(field)


def test_a_background_child_ignores_the_terminals_ctrl_c_and_is_reaped(tmp_path):
    machine = Machine()
    pid = machine.start(["sleep", "30"], str(tmp_path / "sleep.log"))
    try:
        ignored = signal_mask(pid, "SigIgn")
        assert ignored & (1 << (signal.SIGINT - 1)) and ignored & (1 << (signal.SIGQUIT - 1))
        assert not ignored & (1 << (signal.SIGTERM - 1))
        assert os.readlink(f"/proc/{pid}/fd/0") == "/dev/null"
        assert (
            os.readlink(f"/proc/{pid}/fd/1")
            == os.readlink(f"/proc/{pid}/fd/2")
            == str(tmp_path / "sleep.log")
        )
    finally:
        os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        if not machine.running(str(pid)):
            break
        machine.sleep(0.05)
    assert not machine.running(str(pid))  # a zombie until reaped: stopped all the same
    machine.reap()
    assert machine.children == [] and not Path(f"/proc/{pid}").exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_the_block_only_once_the_running_program_has_ended(tmp_path, signum):
    machine = Machine()
    done = tmp_path / "done"
    before = signal.getsignal(signum)
    with pytest.raises(Interrupted) as interrupted, machine.deferring_signals():
        kill = f"kill -{signum.name.removeprefix('SIG')} {os.getpid()}"
        machine.call(["sh", "-c", f"{kill}; sleep 0.3; touch {done}"])
        raise AssertionError("not interrupted")
    assert done.exists() and interrupted.value.status == 130
    assert signal.getsignal(signum) == before and machine.pending is None


def test_a_machine_is_found_as_it_is():
    machine = Machine()
    assert machine.is_root() == (os.geteuid() == 0)
    assert machine.own_netns().startswith("net:[")
    assert str(os.getpid()) in machine.netns_pids(os.stat("/proc/self/ns/net").st_ino)
    assert machine.netns_inode("no-such-namespace-of-the-cluster") == ""
    assert machine.home_of("root") == "/root" and machine.home_of("no-such-user-of-the-cluster") is None
    assert machine.has_group("root") and not machine.has_group("no-such-group-of-the-cluster")


def test_a_hang_up_ends_the_block_at_once_and_the_running_program_with_it():
    machine = Machine()
    started = time.monotonic()
    with pytest.raises(Interrupted) as interrupted, machine.deferring_signals():
        machine.call(["sh", "-c", f"kill -HUP {os.getpid()}; exec sleep 5"])
    assert interrupted.value.status == 129
    assert time.monotonic() - started < 4  # the program was not waited for: it was killed
