"""scripts/cluster.sh's commands but up and down (stack/cluster/commands.py) against a machine
that records what they run (tests/support/cluster.py): deploy, exec, status, load and run as the
bash script ran them, and `test`'s order, its teardown after a failure or an interrupt, and its
exit status."""

import os
import re
import signal

import pytest

from common.environment import ROOT
from stack.cluster import commands
from stack.cluster.hosts import exec_argv
from stack.processes import StackError, StepFailed
from tests.support.cluster import FakeMachine, cluster_in, made

ANSIBLE = ["ansible-playbook", "-i", "inventories/cluster"]
PLUGINS_OFF = ["-p", "no:django", "-p", "no:schemathesis", "-p", "no:anyio"]


def test_deploy_runs_site_yml_or_the_playbook_named_from_the_ansible_folder(tmp_path):
    cluster, machine = made(tmp_path)
    assert commands.deploy(cluster, machine, []) == 0
    assert (
        commands.deploy(cluster, machine, ["ecommerce.yml", "-e", "@inventories/cluster/shared-cores.yml"])
        == 0
    )
    assert commands.deploy(cluster, machine, ["--check"]) == 0
    assert machine.ran == [
        [*ANSIBLE, "site.yml", "--forks", "4"],
        [*ANSIBLE, "ecommerce.yml", "--forks", "4", "-e", "@inventories/cluster/shared-cores.yml"],
        [*ANSIBLE, "site.yml", "--forks", "4", "--check"],
    ]
    options = machine.options[0]
    assert options["cwd"] == f"{ROOT}/ansible"
    assert options["env"]["PATH"] == f"/venv/bin:{os.environ['PATH']}"
    assert {
        name: options["env"][name] for name in options["env"] if name.startswith(("ANSIBLE_", "PROFILE_"))
    } == {
        "ANSIBLE_SSH_CONTROL_PATH_DIR": cluster.control_dir,
        "ANSIBLE_FORCE_COLOR": "0",
        "ANSIBLE_CALLBACKS_ENABLED": "ansible.posix.profile_tasks",
        "PROFILE_TASKS_TASK_OUTPUT_LIMIT": "15",
    }


def test_deploy_ends_with_ansible_playbooks_status_and_refuses_before_it(tmp_path):
    cluster, machine = made(tmp_path)
    machine.answers[(*ANSIBLE, "site.yml", "--forks", "4")] = (4, "")
    assert commands.deploy(cluster, machine, []) == 4
    with pytest.raises(StackError, match=r"^no playbook ansible/nothing\.yml$"):
        commands.deploy(cluster, machine, ["nothing.yml"])
    fresh = FakeMachine(tmp_path / "other")
    with pytest.raises(StackError, match=r"^the cluster is not up \(scripts/cluster.sh up\)$"):
        commands.deploy(cluster_in(tmp_path / "other"), fresh, [])
    assert fresh.ran == []


def test_a_command_on_a_host_runs_in_its_namespaces_with_its_status(tmp_path):
    cluster, machine = made(tmp_path)
    machine.answers[tuple(exec_argv("1004", ["false"]))] = (1, "")
    assert commands.exec_on(cluster, machine, ["ecommerce-1", "false"]) == 1
    assert machine.ran == [exec_argv("1004", ["false"])]
    with pytest.raises(StackError, match=r"^usage: scripts/cluster.sh exec HOST CMD\.\.\.$"):
        commands.exec_on(cluster, machine, ["db-1"])
    with pytest.raises(StackError, match=r"^unknown host 'db-9'; the hosts: db-1 "):
        commands.exec_on(cluster, machine, ["db-9", "true"])
    machine.live.pop("1001")
    with pytest.raises(StackError, match=r"^db-1 is not up \(scripts/cluster.sh up\)$"):
        commands.exec_on(cluster, machine, ["db-1", "true"])


def test_status_says_each_hosts_sshd_and_processes_then_its_programs(tmp_path, capsys):
    cluster, machine = made(tmp_path)
    machine.live.pop("1008")  # lb-1's sshd gone
    machine.namespaces[int(machine.netns_inode("db-2"))] += ["3001", "3002"]
    assert commands.show_status(cluster, machine, []) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        "db-1         10.213.1.10    sshd 1001, 1 processes",
        "db-2         10.213.1.11    sshd 1002, 3 processes",
    ]
    assert lines[-1] == "lb-1         10.213.1.50    no sshd"
    programs = [argv for argv in machine.ran if argv[0] == "nsenter"]
    assert programs == [
        exec_argv(str(pid), ["/bin/sh", "-c", commands.SUPERVISOR_STATUS]) for pid in range(1001, 1008)
    ]
    assert commands.SUPERVISOR_STATUS == (
        "c=/srv/orderservice/etc/supervisord.conf; "
        '[ -e $c ] && supervisorctl -c $c status | sed "s/^/    /" || true'
    )
    machine.answers[tuple(programs[0])] = (126, "")
    with pytest.raises(StepFailed):
        commands.show_status(cluster, machine, [])


def test_status_of_no_cluster_says_it_is_down(tmp_path, capsys):
    assert commands.show_status(cluster_in(tmp_path), FakeMachine(tmp_path), []) == 0
    assert capsys.readouterr().err == "cluster: down\n"


def test_load_and_run_drive_cluster_load_py_on_locust_1(tmp_path, monkeypatch):
    cluster, machine = made(tmp_path)
    monkeypatch.delenv("STEP_SECONDS", raising=False)
    commands.load(cluster, machine, ["40", "80"])
    monkeypatch.setenv("STEP_SECONDS", "10")
    commands.load(cluster, machine, [])
    commands.run_profile(cluster, machine, ["capacity", "RPM_START=1200"])
    script = f"{ROOT}/scripts/cluster_load.py"
    assert machine.ran == [
        exec_argv("1006", ["env", "STEP_SECONDS=30", "/usr/bin/python3", script, "40", "80"]),
        exec_argv("1006", ["env", "STEP_SECONDS=10", "/usr/bin/python3", script]),
        exec_argv("1006", ["/usr/bin/python3", script, "run", "capacity", "RPM_START=1200"]),
    ]


def test_load_and_run_refuse_what_they_cannot_run(tmp_path):
    cluster, machine = made(tmp_path)
    with pytest.raises(StackError) as refused:
        commands.load(cluster, machine, ["run", "capacity"])
    assert str(refused.value) == (
        "usage: scripts/cluster.sh load [USERS...] (a profile's run: scripts/cluster.sh run PROFILE)"
    )
    with pytest.raises(StackError) as refused:
        commands.run_profile(cluster, machine, [])
    assert str(refused.value) == (
        "usage: scripts/cluster.sh run PROFILE [NAME=VALUE...], e.g. run capacity RPM_START=1200"
    )
    machine.live.pop("1006")
    for command in (commands.load, commands.run_profile):
        with pytest.raises(StackError, match=r"^the cluster is not up \(scripts/cluster.sh up, deploy\)$"):
            command(cluster, machine, ["capacity"])
    assert machine.ran == []


def tested(tmp_path, machine=None, args=("-k", "faults")):
    cluster = cluster_in(tmp_path)
    machine = machine or FakeMachine(tmp_path)
    return cluster, machine, commands.test(cluster, machine, list(args))


def test_cluster_test_is_up_deploy_tests_down_then_the_teardown_test(tmp_path, capsys):
    cluster, machine, status = tested(tmp_path)
    assert status == 0
    ran = machine.ran
    steps = [
        ran.index([f"{ROOT}/scripts/bootstrap.sh"]),
        ran.index(["tee", f"{cluster.dir}/logs/deploy.log"]),
        ran.index([*ANSIBLE, "site.yml", "--forks", "4"]),
        ran.index(
            ["/venv/bin/python", "-m", "pytest", "tests/cluster", *PLUGINS_OFF]
            + ["--ignore", "tests/cluster/test_teardown.py", "-k", "faults"]
        ),
        len(ran) - 1 - ran[::-1].index(["ss", "-Hltn"]),
        ran.index(
            [
                "/venv/bin/python",
                "-m",
                "pytest",
                "tests/cluster/test_teardown.py",
                *PLUGINS_OFF,
                "-k",
                "faults",
            ]
        ),
    ]
    assert steps == sorted(steps) and steps[-1] == len(ran) - 1
    assert ["ip", "netns", "del", "db-1"] in ran[steps[3] :]
    for index in (steps[3], steps[5]):
        assert (machine.options[index]["cwd"], machine.options[index]["env"]["PYTHONPATH"]) == (
            str(ROOT),
            str(ROOT),
        )
    said = capsys.readouterr().err
    timings = r"cluster-test: up \d+s, deploy \d+s, tests \d+s, down \d+s, total \d+s"
    assert re.search(rf"\n{timings}\ncluster-test: passed\n$", said)


def test_cluster_test_fails_when_a_test_fails_or_something_is_left(tmp_path, capsys):
    machine = FakeMachine(tmp_path)
    teardown = ("/venv/bin/python", "-m", "pytest", "tests/cluster/test_teardown.py", *PLUGINS_OFF)
    machine.answers[teardown] = (1, "")
    assert tested(tmp_path, machine, args=())[2] == 1
    assert capsys.readouterr().err.endswith("cluster-test: FAILED\n")


def test_a_failed_deploy_is_torn_down_and_ends_cluster_test_with_its_status(tmp_path):
    machine = FakeMachine(tmp_path)
    machine.answers[(*ANSIBLE, "site.yml", "--forks", "4")] = (2, "")
    with pytest.raises(StepFailed) as failed:
        tested(tmp_path, machine)
    assert failed.value.returncode == 2
    after = machine.ran[machine.ran.index([*ANSIBLE, "site.yml", "--forks", "4"]) + 1 :]
    assert ["ip", "link", "del", "osbr0"] in after and not [argv for argv in after if "pytest" in argv]
    assert not machine.live and not machine.links and not machine.netns


def test_a_refusal_during_cluster_test_is_said_before_the_teardown(tmp_path, capsys):
    machine = FakeMachine(tmp_path)
    machine.reachable = False
    with pytest.raises(StepFailed) as failed:
        tested(tmp_path, machine)
    assert failed.value.returncode == 1
    said = capsys.readouterr().err
    assert said.index("error: db-1: sshd did not start on 10.213.1.10:22\n") < said.index("cluster: down (")
    assert not machine.netns


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_during_cluster_test_tears_down_after_the_running_program_then_exits_130(
    tmp_path, monkeypatch, signum
):
    monkeypatch.setenv("CLUSTER_DIR", cluster_in(tmp_path).dir)
    monkeypatch.setenv("CLUSTER_SUBNET", "10.213.1.0/24")
    machine = FakeMachine(tmp_path)
    record = machine.record

    def interrupted_during_the_tests(argv, options):
        if argv[-3:] == ["--ignore", "tests/cluster/test_teardown.py", "-x"]:
            os.kill(os.getpid(), signum)  # as Ctrl-C or a kill while pytest runs
        return record(argv, options)

    machine.record = interrupted_during_the_tests
    before = signal.getsignal(signum)
    assert commands.run(["test", "-x"], machine) == 130
    assert signal.getsignal(signum) == before
    tests = [index for index, argv in enumerate(machine.ran) if "pytest" in " ".join(argv)]
    assert len(tests) == 1  # the teardown test did not run
    assert ["ip", "link", "del", "osbr0"] in machine.ran[tests[0] :] and not machine.live


def test_an_unknown_command_prints_the_usage_and_exits_2(tmp_path, capsys):
    assert commands.run([], FakeMachine(tmp_path)) == 2
    assert commands.run(["start"], FakeMachine(tmp_path)) == 2
    assert capsys.readouterr().err == f"{commands.USAGE}\n" * 2
    assert commands.USAGE == (
        "usage: scripts/cluster.sh up|deploy [PLAYBOOK.yml] [ansible-playbook args]|down|status"
        "|exec HOST CMD...|hosts|load [USERS...]|run PROFILE [NAME=VALUE...]|test [pytest args]"
    )


def test_a_subnet_that_is_not_a_slash_24_is_refused_whatever_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("CLUSTER_SUBNET", "10.213.0.0/16")
    for argv in (["hosts"], ["start"], []):
        with pytest.raises(StackError, match="CLUSTER_SUBNET must be a /24"):
            commands.run(argv, FakeMachine(tmp_path))


def test_the_programs_the_cluster_runs_get_the_callers_pythonpath():
    for before, after in (
        ({"PYTHONPATH": "/r"}, {}),
        ({"PYTHONPATH": "/r:/mine"}, {"PYTHONPATH": "/mine"}),
        ({"PYTHONPATH": "/mine"}, {"PYTHONPATH": "/mine"}),
        ({}, {}),
    ):
        environ = dict(before)
        commands.callers_pythonpath(environ, "/r")
        assert environ == after
    environ = {"PYTHONPATH": "/mine"}
    commands.callers_pythonpath(environ, "")
    assert environ == {"PYTHONPATH": "/mine"}


def test_a_hang_up_during_cluster_test_tears_down_at_once_and_exits_129(tmp_path, monkeypatch):
    monkeypatch.setenv("CLUSTER_DIR", cluster_in(tmp_path).dir)
    monkeypatch.setenv("CLUSTER_SUBNET", "10.213.1.0/24")
    machine = FakeMachine(tmp_path)
    record = machine.record

    def hung_up_before_the_tests(argv, options):
        if "pytest" in argv:
            os.kill(os.getpid(), signal.SIGHUP)  # the terminal is gone: no waiting for anything
        return record(argv, options)

    machine.record = hung_up_before_the_tests
    assert commands.run(["test"], machine) == 129
    assert not [argv for argv in machine.ran if "pytest" in argv]
    assert ["ip", "link", "del", "osbr0"] in machine.ran and not machine.live
