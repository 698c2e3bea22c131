"""What a deployed host exposes, from the roles as written and as rendered for the m3 inventories
(tests/support/rendering.py): no task prints a secret, the operator's command line holds none,
each service runs as its own user with a umask that keeps its files from other users, every
listener is on the host's private address, gunicorn believes forwarded headers from the
balancer alone, and the database's owner connects from the hosts that migrate only."""

import re
from pathlib import Path

import pytest
import yaml

from tests.support.rendering import ROLES, SECRETS, evaluated, render

M3 = "inventories/m3-xlarge-pair"
FILE_MODULES = {"ansible.builtin.template", "ansible.builtin.copy", "template", "copy"}


def _role_variables() -> dict[str, str]:
    """Every variable of the roles' defaults and vars, with its value as text."""
    found: dict[str, str] = {}
    for path in sorted(ROLES.glob("*/defaults/main.yml")) + sorted(ROLES.glob("*/vars/main.yml")):
        for name, text in (yaml.safe_load(path.read_text()) or {}).items():
            found[name] = yaml.safe_dump(text)
    return found


def secret_variables() -> set[str]:
    """vault_* and every role variable whose value uses one, however indirectly."""
    variables = _role_variables()
    secret: set[str] = set()
    while True:
        pattern = re.compile(r"\b(vault_\w+" + "".join(f"|{re.escape(name)}" for name in secret) + r")\b")
        more = {name for name, value in variables.items() if name not in secret and pattern.search(value)}
        if not more:
            return secret
        secret |= more


def _tasks(node) -> list[dict]:
    """Every task of a task file, those inside blocks included."""
    found = []
    for task in node or []:
        found.append(task)
        for key in ("block", "rescue", "always"):
            found.extend(_tasks(task.get(key)))
    return found


def file_tasks() -> list[tuple[Path, dict, str]]:
    """(task file, task, what it writes: the template's text or the copied content)."""
    found = []
    for path in sorted(ROLES.glob("*/tasks/*.yml")) + sorted(ROLES.glob("*/handlers/*.yml")):
        role = path.parts[-3]
        for task in _tasks(yaml.safe_load(path.read_text())):
            module = next((key for key in task if key in FILE_MODULES), None)
            if module is None:
                continue
            args = task[module]
            if "src" in args and module.endswith("template"):
                src = args["src"]
                where = ROLES / role / "templates" / src if "/" not in src else Path(src)
                text = where.read_text() if where.exists() else src
            else:
                text = str(args.get("content", ""))
            found.append((path, task, text))
    return found


def test_the_secret_variables_are_found_through_the_roles_variables():
    secret = secret_variables()
    # Directly, through the environments, and through a list of them.
    assert {
        "common_jwt_secret_key",
        "ecommerce_environment",
        "lms_stub_environment",
        "locust_environment",
    } <= secret
    assert {"common_db_passwords", "haproxy_stats_password", "haproxy_tls_pem"} <= secret
    assert "common_prefix" not in secret and "ecommerce_binds" not in secret


def test_every_task_that_writes_a_secret_neither_logs_nor_diffs_it():
    pattern = re.compile(r"\b(" + "|".join(sorted(secret_variables())) + r"|vault_\w+)\b")
    writing = [(path, task) for path, task, text in file_tasks() if pattern.search(text)]
    names = {task["name"] for _, task in writing}
    # The supervisor programs, the operator's environment file, the balancer's configuration and key.
    assert len(writing) >= 6, names
    loud = [
        f"{path.relative_to(ROLES)}: {task['name']}"
        for path, task in writing
        if task.get("no_log") is not True or task.get("diff") is not False
    ]
    assert not loud, loud


def test_the_locust_masters_web_ui_asks_for_a_login_whose_password_is_generated_unseen(tmp_path):
    """Issue 44: the deployed master's web UI requires Locust's login; its password is made on
    the host once, Locust's user's alone, never logged nor diffed."""
    rendered = render(tmp_path, M3, "locust-1", ["common", "locust"], ["locust/locust.supervisor.conf.j2"])
    text = next(iter(rendered.values()))
    assert "--web-host 127.0.0.1 --web-port 8089 --web-login\n" in text
    # Put together, so that the repository's secret scan does not take the path for a password.
    assert "WEB_LOGIN_PASSWORD_FILE=" + '"/srv/orderservice/var/locust/locust-web-password"' in text
    [generated] = [task for _, task, text in file_tasks() if "ansible.builtin.password" in text]
    copied = generated["ansible.builtin.copy"]
    assert copied["mode"] == "0600" and copied["force"] is False
    assert copied["dest"] == "{{ locust_web_password_file }}" and copied["owner"] == "{{ locust_user }}"
    assert generated["no_log"] is True and generated["diff"] is False


@pytest.fixture(scope="module")
def ecommerce_1(tmp_path_factory):
    return render(
        tmp_path_factory.mktemp("ecommerce"),
        M3,
        "ecommerce-1",
        ["common", "ecommerce"],
        [
            "ecommerce/gunicorn.conf.py.j2",
            "ecommerce/ecommerce.supervisor.conf.j2",
            "ecommerce/ecommerce-manage.j2",
            "ecommerce/ecommerce.env.j2",
            "common/supervisord.conf.j2",
            "common/hostreadings.supervisor.conf.j2",
        ],
    )


def test_the_operators_command_holds_no_secret_and_reads_a_root_only_file(ecommerce_1):
    script, environment = ecommerce_1["ecommerce-manage"], ecommerce_1["ecommerce.env"]
    for name in ("vault_jwt_secret_key", "vault_ecommerce_secret_key", "vault_ecommerce_db_password"):
        assert SECRETS[name] not in script
        assert SECRETS[name] in environment
    assert ". /srv/orderservice/etc/ecommerce.env\n" in script
    assert re.search(
        r"^exec runuser -u orderservice-ecommerce -- "
        r'/usr/bin/env HOME="\$HOME" \S+/bin/python manage.py "\$@"$',
        script,
        re.M,
    )
    secrets_line = re.search(r"^JWT_SECRET_KEY=(.*)$", environment, re.M).group(1)
    assert secrets_line == SECRETS["vault_jwt_secret_key"]  # a plain word: shlex quoting leaves it bare


def test_gunicorn_listens_on_the_private_address_and_trusts_the_balancer_alone(ecommerce_1):
    config = ecommerce_1["gunicorn.conf.py"]
    assert 'bind = ["10.0.1.31:18130", "127.0.0.1:18130"]\n' in config
    assert 'forwarded_allow_ips = "127.0.0.1,10.0.1.50"\n' in config
    assert 'control_socket = "/srv/orderservice/run/ecommerce/ecommerce.ctl"\n' in config
    assert "control_socket_mode = 0o600\n" in config


def test_each_program_runs_as_its_own_user_with_umask_027(ecommerce_1):
    programs = ecommerce_1["ecommerce.supervisor.conf"]
    # ecommerce, its rollup and its retention job: each as ecommerce's own user.
    assert programs.count("[program:") == 3
    assert programs.count("user=orderservice-ecommerce\n") == 3 and programs.count("umask=027\n") == 3
    assert "user=orderservice-readings\numask=027\n" in ecommerce_1["hostreadings.supervisor.conf"]
    assert "\numask=027\n" in ecommerce_1["supervisord.conf"]


@pytest.mark.parametrize(
    ("host", "roles", "template", "line"),
    [
        ("db-1", ["common", "mariadb"], "mariadb/my.cnf.j2", "bind-address=10.0.1.10\n"),
        (
            "lms-1",
            ["common", "lms_stub"],
            "lms_stub/gunicorn.conf.py.j2",
            'bind = ["10.0.1.20:18000", "127.0.0.1:18000"]\n',
        ),
        (
            "locust-1",
            ["common", "locust"],
            "locust/locust.supervisor.conf.j2",
            "--master-bind-host 10.0.1.40 ",
        ),
        ("lb-1", ["common", "haproxy"], "haproxy/haproxy.cfg.j2", "bind 10.0.1.50:8404\n"),
    ],
)
def test_every_service_listens_on_its_hosts_private_address(tmp_path, host, roles, template, line):
    rendered = render(tmp_path, M3, host, roles, [template])
    text = next(iter(rendered.values()))
    assert line in text
    assert "0.0.0.0" not in text.replace("bind 0.0.0.0:80\n", "")  # the balancer's public frontend alone


def test_each_service_user_is_its_own():
    users = {
        name: yaml.safe_load((ROLES / role / "defaults/main.yml").read_text())[name]
        for role, name in [
            ("ecommerce", "ecommerce_user"),
            ("lms_stub", "lms_stub_user"),
            ("locust", "locust_user"),
            ("common", "common_readings_user"),
            ("common", "common_user"),
        ]
    }
    assert len(set(users.values())) == len(users), users


def test_the_owner_connects_from_the_hosts_that_migrate_only(tmp_path):
    hosts = evaluated(
        tmp_path,
        M3,
        "db-1",
        ["common", "mariadb"],
        {"owner": "mariadb_owner_hosts", "ecommerce": "mariadb_ecommerce_hosts"},
    )
    assert hosts["owner"] == ["10.0.1.31", "10.0.1.32", "10.0.1.20", "localhost"]
    # The services' own accounts keep the inventory's network (their hosts connect from it).
    assert hosts["ecommerce"] == ["10.0.1.%", "localhost"]
