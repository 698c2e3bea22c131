"""Issue 28 on the deployed hosts: every listener on the host's private address (the balancer's
public frontend alone on every address), each service as its own user, nothing of theirs
readable by other users, gunicorn believing forwarded headers from the balancer alone, MariaDB's
root by its socket alone and the owner from the migrating hosts alone, the operator's command
line free of secrets, and the balancer's body limit and per-address rate limits."""

import json
import urllib.error
import urllib.request

import pytest

from tests.cluster.conftest import ECOMMERCE_PORT, PREFIX, hosts, on_host

ADDRESSES = hosts()
SUPERVISORCTL = ("supervisorctl", "-c", f"{PREFIX}/etc/supervisord.conf")
USERS = {
    "ecommerce": "orderservice-ecommerce",
    "ecommerce-rollup": "orderservice-ecommerce",
    "ecommerce-retention": "orderservice-ecommerce",
    "lms_stub": "orderservice-lms",
    "locust-master": "orderservice-locust",
    "locust-worker:locust-worker-0": "orderservice-locust",
    "hostreadings": "orderservice-readings",
    "mariadb": "orderservice",  # mariadbd drops to the code's owner (my.cnf user=)
}
TEST_SECRET = "cluster-test-only"  # every value of test-secrets.yml has it


def listeners(host: str) -> list[tuple[str, str]]:
    """(local address:port, program) of every TCP listener in the host's namespace."""
    found = []
    for line in on_host(host, "ss", "-H", "-l", "-t", "-n", "-p").splitlines():
        fields = line.split()
        program = fields[5].split('"')[1] if len(fields) > 5 else "?"
        found.append((fields[3], program))
    return found


@pytest.mark.parametrize("host", sorted(ADDRESSES))
def test_every_listener_is_on_the_hosts_private_address_or_loopback(host):
    own = ADDRESSES[host]
    # The host's sshd is scripts/cluster.sh's connection, not the deployment's.
    found = [(local, program) for local, program in listeners(host) if program != "sshd"]
    assert found, host
    anywhere = ("0.0.0.0", "*", "[::]")
    everywhere = [(local, program) for local, program in found if local.rsplit(":", 1)[0] in anywhere]
    # The balancer's public frontend (https) alone listens on every address.
    assert everywhere == ([("0.0.0.0:443", "haproxy")] if host == "lb-1" else []), found
    others = [local for local, _ in found if (local, "haproxy") not in everywhere]
    assert all(local.startswith((f"{own}:", "127.0.0.1:")) for local in others), found


@pytest.mark.parametrize("host", sorted(ADDRESSES))
def test_each_program_runs_as_its_own_user_and_leaves_nothing_world_readable(host):
    status = on_host(host, *SUPERVISORCTL, "status")
    for line in status.splitlines():
        name = line.split()[0]
        if name.startswith("locust-worker:"):
            name = "locust-worker:locust-worker-0" if name.endswith("-0") else None
        if name is None or name == "haproxy":  # HAProxy's master is root; its worker drops (haproxy.cfg)
            continue
        pid = on_host(host, *SUPERVISORCTL, "pid", name).strip()
        assert on_host(host, "stat", "-c", "%U", f"/proc/{pid}").strip() == USERS[name], (host, name)
    # Every log, and every entry of run/ and var/: what lies inside a service's 0750 folder
    # (gunicorn's pid file, which it makes 0644 itself; ecommerce's static files) no one reaches.
    find = "find log -mindepth 1 -perm /o=rwx; find run var -mindepth 1 -maxdepth 1 -perm /o=rwx"
    opened = on_host(host, "sh", "-c", f"cd {PREFIX} && {{ {find}; }}")
    assert opened.strip() == "", opened


def test_the_services_users_resolve_the_balancers_name():
    """lms_stub reaches ecommerce by the balancer's name as its own user: a host's /etc/hosts
    that only root can read fails every purchase with a 502 (name resolution)."""
    resolved = on_host(
        "lms-1", "runuser", "-u", USERS["lms_stub"], "--", "getent", "hosts", "orders.example.com"
    )
    assert resolved.split()[0] == ADDRESSES["lb-1"], resolved


def _status_without_redirects(url: str, headers: dict) -> int:
    class Refuse(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(Refuse)
    try:
        with opener.open(urllib.request.Request(url, headers=headers), timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.parametrize("host", ["ecommerce-1", "ecommerce-2"])
def test_gunicorn_believes_x_forwarded_proto_from_the_balancer_alone(host):
    # From this machine's side of the bridge (not the balancer), https is not believed: the
    # service redirects to https as it does a plain http request (SECURE_SSL_REDIRECT).
    headers = {"Host": "orders.example.com", "X-Forwarded-Proto": "https"}
    url = f"http://{ADDRESSES[host]}:{ECOMMERCE_PORT}/health/"
    assert _status_without_redirects(url, headers) == 301
    config = on_host(host, "cat", f"{PREFIX}/etc/ecommerce.gunicorn.conf.py")
    assert f'forwarded_allow_ips = "127.0.0.1,{ADDRESSES["lb-1"]}"\n' in config


def test_mariadb_root_only_by_its_socket_and_the_owner_only_from_the_migrating_hosts():
    query = "SELECT CONCAT(User, '@', Host) FROM mysql.user WHERE User IN ('root', 'orders') ORDER BY 1"
    socket = f"--socket={PREFIX}/mariadb/mysqld.sock"
    accounts = on_host("db-1", "mariadb", "--no-defaults", socket, "--user=root", "-N", "-e", query).split()
    migrating = sorted(f"orders@{ADDRESSES[name]}" for name in ("ecommerce-1", "ecommerce-2", "lms-1"))
    assert accounts == [*migrating, "orders@localhost", "root@localhost"]
    show = "SHOW CREATE USER root@localhost"
    shown = on_host("db-1", "mariadb", "--no-defaults", socket, "--user=root", "-N", "-e", show)
    assert shown.strip().endswith("IDENTIFIED VIA unix_socket"), shown
    tcp = ["mariadb", "--no-defaults", f"--host={ADDRESSES['db-1']}", "--user=root", "-e", "SELECT 1"]
    assert "denied" in on_host("db-1", "sh", "-c", " ".join(tcp) + " 2>&1 || true")


def test_the_operators_management_command_carries_no_secret_on_its_command_line():
    code = (
        "import os, pwd; print(pwd.getpwuid(os.getuid()).pw_name);"
        " [print(open(f'/proc/{p}/cmdline').read().replace(chr(0), ' ')) for p in ('self', os.getppid())]"
    )
    manage = f"{PREFIX}/bin/ecommerce-manage"
    out = on_host("ecommerce-1", manage, "shell", "--verbosity=0", "-c", code, timeout=120)
    assert out.splitlines()[0] == "orderservice-ecommerce", out
    assert "runuser" in out and TEST_SECRET not in out, out
    assert TEST_SECRET not in on_host("ecommerce-1", "cat", f"{PREFIX}/bin/ecommerce-manage")
    assert on_host("ecommerce-1", "stat", "-c", "%U %a", f"{PREFIX}/etc/ecommerce.env").strip() == "root 600"


BALANCER_PROBE = """
import json, socket, ssl, urllib.error, urllib.request
context = ssl.create_default_context(cafile='{ca}')
def ask(path):
    try:
        url = 'https://orders.example.com' + path
        with urllib.request.urlopen(url, context=context, timeout=10) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()
statuses = [ask('/auto_auth')[0] for _ in range(25)]
status, headers, body = ask('/auto_auth')
# A head that announces 70,000 bytes, as an attacker's would: the answer comes before the body.
with socket.create_connection(('orders.example.com', 443), timeout=10) as raw:
    with context.wrap_socket(raw, server_hostname='orders.example.com') as tls:
        tls.sendall(b'POST /api/v2/baskets/ HTTP/1.1\\r\\nHost: orders.example.com\\r\\n'
                    b'Content-Type: application/json\\r\\nContent-Length: 70000\\r\\n\\r\\n')
        answer = b''
        while chunk := tls.recv(65536):
            answer += chunk
head, _, big = answer.partition(b'\\r\\n\\r\\n')
print(json.dumps({{'statuses': statuses, 'last': [status, headers.get('Retry-After'), body.decode()],
                  'big': [int(head.split()[1]), big.decode()]}}))
"""


@pytest.mark.parametrize(("host", "limited"), [("ecommerce-2", True), ("locust-2", False), ("lms-1", False)])
def test_the_balancer_limits_each_address_but_the_load_generators_and_the_lms(host, limited):
    probe = BALANCER_PROBE.format(ca=f"{PREFIX}/etc/http-ca.pem")
    found = json.loads(on_host(host, "/usr/bin/python3", "-c", probe))
    # Oversized bodies are refused at the balancer, for everyone, in the services' JSON shape.
    assert found["big"][0] == 413 and json.loads(found["big"][1])["error"] == "body_too_large"
    if limited:
        assert 429 not in found["statuses"][:20] and set(found["statuses"][21:]) == {429}, found
        assert found["last"][0] == 429 and found["last"][1] == "10"
        assert json.loads(found["last"][2])["error"] == "rate_limited"
    else:
        assert 429 not in found["statuses"] + [found["last"][0]], found
