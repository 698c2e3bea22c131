"""Rolling deploys of the ecommerce pair, as the playbook and the role declare them: one host at
a time, and a restart of the service bracketed by the balancer's drain and ready (the cluster
test, tests/cluster/test_faults.py, plays one under load)."""

from pathlib import Path

import yaml

ANSIBLE = Path(__file__).resolve().parents[2] / "ansible"
ROLE = ANSIBLE / "roles" / "ecommerce"
RESTARTS = {"Update ecommerce programs", "Restart ecommerce"}


def test_the_ecommerce_play_deploys_one_host_at_a_time_and_stops_at_a_failure():
    (play,) = yaml.safe_load((ANSIBLE / "ecommerce.yml").read_text())
    assert play["serial"] == 1
    assert play["max_fail_percentage"] == 0


def test_every_restart_is_drained_before_and_made_ready_after():
    handlers = yaml.safe_load((ROLE / "handlers" / "main.yml").read_text())
    names = [handler["name"] for handler in handlers]
    drain, ready = handlers[0], handlers[-1]
    # Handlers run in the order written, whichever notified them: drain, the restarts, ready.
    assert set(names[1:-1]) == RESTARTS
    for handler, action in ((drain, "drain"), (ready, "ready")):
        assert set(handler["listen"]) == RESTARTS
        assert handler["ansible.builtin.include_tasks"] == "balancer.yml"
        assert handler["vars"]["ecommerce_balancer_action"] == action


def test_the_balancer_tasks_act_on_running_balancers_only():
    find, act = yaml.safe_load((ROLE / "tasks" / "balancer.yml").read_text())
    assert find["delegate_to"] == "{{ item }}" and find["loop"] == "{{ ecommerce_balancer_hosts }}"
    assert act["delegate_to"] == "{{ item.item }}"
    assert "selectattr('stat.exists')" in act["loop"]
    script = act["ansible.builtin.shell"]
    assert 'state $ACTION"' in script and "set -o pipefail" in script


def test_the_balancers_are_the_load_balancer_group_by_default():
    defaults = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
    assert defaults["ecommerce_balancer_hosts"] == "{{ groups.get('load_balancer', []) }}"
    assert defaults["ecommerce_balancer_server"] == "{{ inventory_hostname }}"
