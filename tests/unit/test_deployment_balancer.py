"""The load balancer's configuration as the haproxy role writes it for each inventory, rendered
through Ansible with the inventory's values (the roles' defaults under them, none of their
tasks run) and checked by HAProxy itself (``haproxy -c``) where it is installed."""

import datetime
import http.server
import json
import re
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.support.rendering import ROLES, evaluated, template

# Debian's haproxy (scripts/packages.txt): /usr/sbin is not on every PATH. Never skipped: a
# machine without it fails here, as `make test` installs it.
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
ERRORS = yaml.safe_load((ROLES / "haproxy/vars/main.yml").read_text())["haproxy_json_errors"]
BUDGETS = {
    limit["path"]: limit["requests"]
    for limit in yaml.safe_load((ROLES / "haproxy/defaults/main.yml").read_text())["haproxy_rate_limits"]
}


def render(tmp_path: Path, inventory: str, **extra: str) -> str:
    """haproxy.cfg for the inventory's balancer host, with the files it names (the error
    answers, the certificate) written as the role writes them, under tmp_path instead of the
    prefix."""
    variables = {
        "common_prefix": str(tmp_path / "prefix"),
        # haproxy -c resolves the user it would run as: one every Debian has, not the service
        # user a deployment creates (this machine may never have had one).
        "common_user": "nobody",
        "common_group": "nogroup",
        **extra,
    }
    errors = {
        f"error {i}": template("haproxy/error.http.j2", item=f"haproxy_json_errors[{i}]")
        for i in range(len(ERRORS))
    }
    found = evaluated(
        tmp_path,
        inventory,
        "load_balancer",
        ["common", "haproxy"],
        {
            "haproxy.cfg": template("haproxy/haproxy.cfg.j2"),
            "config": "haproxy_config",
            "errors": "haproxy_errors_dir",
            "pem": "haproxy_tls_pem",
            "pem file": "haproxy_tls_pem_file",
            "admin socket": "haproxy_admin_socket",
            **errors,
        },
        variables,
    )
    Path(found["errors"]).mkdir(parents=True)
    Path(found["admin socket"]).parent.mkdir(parents=True, exist_ok=True)
    for i, error in enumerate(ERRORS):
        _write(Path(found["errors"]) / f"{error['status']}.http", found[f"error {i}"], 0o644)
    if found["pem"]:
        _write(Path(found["pem file"]), found["pem"], 0o600)
    _write(Path(found["config"]), found["haproxy.cfg"], 0o600)
    return found["haproxy.cfg"]


def _write(path: Path, text: str, mode: int) -> None:
    path.write_text(text)
    path.chmod(mode)


def haproxy_accepts(tmp_path: Path) -> None:
    checked = subprocess.run(
        [HAPROXY, "-c", "-f", str(tmp_path / "prefix/etc/haproxy.cfg")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def servers(config: str) -> list[str]:
    return re.findall(r"^\s+server (\S+ \S+)$", config, flags=re.MULTILINE)


@pytest.mark.parametrize("inventory", ["inventories/m3-medium-pair", "inventories/m3-xlarge-pair"])
def test_the_m3_balancer_sends_to_both_ecommerce_hosts_by_least_connections(tmp_path, inventory):
    config = render(tmp_path, inventory)
    assert servers(config) == ["ecommerce-1 10.0.1.31:18130", "ecommerce-2 10.0.1.32:18130"]
    assert "balance leastconn" in config
    # ecommerce's health check as it wants it: an allowed host name, TLS ended in front.
    assert "uri /health/ ver HTTP/1.1 hdr Host orders.example.com hdr X-Forwarded-Proto https" in config
    assert "default-server check inter 1s rise 2 fall 2" in config
    # Longer than lms_stub waits for an order (ECOMMERCE_TIMEOUT 20 s): never a 504 it still waits for.
    assert re.search(r"timeout server 30s\n", config)
    # The stats page is open to the Locust master on the balancer's private address (never
    # 0.0.0.0: only the public frontend is), read-only, behind the vault's password.
    assert "bind 10.0.1.50:8404\n" in config
    assert re.findall(r"^\s+bind 0\.0\.0\.0:(\d+)", config, flags=re.MULTILINE) == ["80"]
    assert not re.search(r"^\s+stats admin", config, flags=re.MULTILINE)
    assert "stats auth 'stats:render-test-only-stats-password'" in config
    haproxy_accepts(tmp_path)


def test_the_molecule_balancer_is_on_its_own_ports_in_front_of_this_host(tmp_path):
    config = render(tmp_path, "molecule/default/inventory")
    assert servers(config) == ["molecule-local 127.0.0.1:28130"]
    assert "bind 127.0.0.1:28180\n" in config and "bind 127.0.0.1:28181\n" in config
    haproxy_accepts(tmp_path)


def certificate_pem() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "orders.example.com")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("orders.example.com")]), critical=False)
        .sign(key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    key_pem = key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return (certificate.public_bytes(pem) + key_pem).decode()


def test_with_a_certificate_the_frontend_ends_tls_on_443(tmp_path):
    config = render(tmp_path, "inventories/m3-xlarge-pair", vault_haproxy_tls_pem=certificate_pem())
    assert re.search(r"bind 0\.0\.0\.0:443 ssl crt \S+/etc/haproxy-tls\.pem\n", config)
    assert "X-Forwarded-Proto https if { ssl_fc }" in config
    assert (tmp_path / "prefix/etc/haproxy-tls.pem").stat().st_mode & 0o077 == 0  # root's alone
    haproxy_accepts(tmp_path)


def test_the_balancers_own_errors_are_json(tmp_path):
    render(tmp_path, "inventories/m3-xlarge-pair")
    answer = (tmp_path / "prefix/etc/haproxy-errors/503.http").read_bytes()
    head, body = answer.split(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
    assert b"Content-Type: application/json" in head
    assert f"Content-Length: {len(body)}".encode() in head
    assert body.startswith(b'{"error": "unavailable", "message": ')


def test_the_m3_balancer_limits_bodies_and_rates_and_exempts_the_load_generators(tmp_path):
    config = render(tmp_path, "inventories/m3-xlarge-pair")
    # The Locust hosts and the LMS (every learner's purchase comes from it) are exempt.
    assert "acl rate_exempt src 10.0.1.40 10.0.1.41 10.0.1.20\n" in config
    for name, path, requests in [
        ("auto_auth", "/auto_auth", 20),
        ("api", "/api/", 300),
        ("payment", "/payment/", 60),
    ]:
        assert f"acl rate_{name} var(txn.routed_path) -m beg {path}\n" in config
        assert (
            f"deny deny_status 429 if rate_{name} !rate_exempt {{ sc_http_req_rate(0) gt {requests} }}"
            in config
        )
        assert (
            f"backend rate_{name}\n    stick-table type ipv6 size 100k expire 10s store http_req_rate(10s)"
            in config
        )
    assert "acl body_limited var(txn.routed_path) -m beg /payment/ /api/\n" in config
    assert "deny deny_status 413 if body_limited { req.hdr_val(content-length) gt 65536 }" in config
    # The path is made normal and decoded before the first rule judges it.
    rules = re.findall(r"^    http-request (.+)$", config, flags=re.MULTILINE)
    judging = [i for i, rule in enumerate(rules) if "routed_path" in rule or "track-sc0" in rule]
    normalising = [i for i, rule in enumerate(rules) if rule.startswith("normalize-uri")]
    assert len(normalising) == 5 and max(normalising) < min(judging)
    assert re.search(r"^global\n(    .*\n)*    expose-experimental-directives\n", config, flags=re.MULTILINE)
    haproxy_accepts(tmp_path)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ask(port: int, request: bytes, source: str = "127.0.0.1") -> tuple[int, dict, bytes]:
    """One raw request (head only, as an attacker may send it) and the balancer's answer (its
    header names in lower case, as HAProxy writes them)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {name.lower(): value for name, value in (line.split(": ", 1) for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


class Recorder(http.server.BaseHTTPRequestHandler):
    """ecommerce's place behind the balancer: every request answered 200 with the target it was
    sent, as gunicorn would read it."""

    def answer(self) -> None:
        # From the request line: self.path has leading slashes merged already.
        target = self.requestline.split(" ")[1].encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(target)))
        self.end_headers()
        self.wfile.write(target)

    do_GET = do_POST = answer

    def log_message(self, *args) -> None:
        pass


def request(method: str, path: str, *headers: str) -> bytes:
    return "\r\n".join([f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *headers, "", ""]).encode()


@pytest.fixture(scope="module")
def balancer(tmp_path_factory):
    """The molecule inventory's balancer, running, on free ports, in front of a Recorder."""
    tmp_path = tmp_path_factory.mktemp("balancer")
    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    extra = {
        "haproxy_port": str(port),
        "haproxy_stats_port": str(free_port()),
        "ecommerce_port": str(server.server_address[1]),
    }
    render(tmp_path, "molecule/default/inventory", **extra)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    process = subprocess.Popen(
        [HAPROXY, "-db", "-f", str(tmp_path / "prefix/etc/haproxy.cfg")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Up once its health checks pass (rise 2, every second).
        for _ in range(100):
            with socket.socket() as probe:
                listening = probe.connect_ex(("127.0.0.1", port)) == 0
            if listening and ask(port, request("GET", "/health/", "Connection: close"))[0] == 200:
                break
            time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)
        server.shutdown()
        server.server_close()


# The same path as the client may spell it: escapes of unreserved characters, doubled slashes,
# dot segments, dots escaped. Each is sent to the server, and judged, as its plain path.
SPELLINGS = {
    "/payment/cybersource/notify/": [
        "/%70ayment/cybersource/notify/",
        "//payment/cybersource/notify/",
        "/api/../payment/cybersource/notify/",
        "/api/%2e%2E/payment/cybersource/notify/",
        "/api/.%2e/./payment//cybersource/notify/",
    ],
    "/api/v2/baskets/": [
        "/%61pi/v2/baskets/",
        "//api/v2/baskets/",
        "/payment/../api/v2/baskets/",
        "/%2e%2e/api/v2/baskets/",
    ],
}
SPELLED = [(plain, spelling) for plain, spellings in SPELLINGS.items() for spelling in [plain, *spellings]]


@pytest.mark.parametrize("plain, spelling", SPELLED)
def test_the_server_is_sent_the_path_in_its_normal_form(balancer, plain, spelling):
    status, _, body = ask(balancer, request("GET", spelling, "Connection: close"))
    assert (status, body.decode()) == (200, plain)


def test_an_escaped_slash_is_judged_as_gunicorn_decodes_it(balancer):
    # Sent on as it came (an escape of a reserved character keeps its meaning), judged as the
    # /api/ path gunicorn makes of it for Django.
    status, _, body = ask(balancer, request("GET", "/api%2fv2/baskets/", "Connection: close"))
    assert (status, body) == (200, b"/api%2Fv2/baskets/")
    head = request("POST", "/api%2Fv2/baskets/", "Transfer-Encoding: chunked")
    assert ask(balancer, head)[0] == 411


@pytest.mark.parametrize("plain, spelling", SPELLED)
def test_a_body_over_the_limit_is_413_in_json_before_it_is_sent(balancer, plain, spelling):
    head = ["Content-Type: multipart/form-data; boundary=x"]
    status, headers, body = ask(balancer, request("POST", spelling, *head, "Content-Length: 65537"))
    assert status == 413 and headers["content-type"] == "application/json"
    assert json.loads(body)["error"] == "body_too_large"
    # Chunked: no length to judge it by before reading it.
    status, _, body = ask(balancer, request("POST", spelling, *head, "Transfer-Encoding: chunked"))
    assert status == 411 and json.loads(body)["error"] == "length_required"


@pytest.mark.parametrize(
    "source, plain, spelling",
    # Each from an address, hence with a budget, of its own.
    [(f"127.0.0.{3 + i}", plain, spelling) for i, (plain, spelling) in enumerate(SPELLED)],
)
def test_every_spelling_of_a_path_has_the_plain_paths_rate_limit(balancer, source, plain, spelling):
    budget = next(requests for prefix, requests in BUDGETS.items() if plain.startswith(prefix))
    post = request("POST", spelling, "Content-Length: 0", "Connection: close")
    statuses = [ask(balancer, post, source=source)[0] for _ in range(budget + 10)]
    assert set(statuses[:budget]) == {200} and set(statuses[budget:]) == {429}, statuses


@pytest.mark.parametrize(
    "path",
    [
        # Decoded once (gunicorn) it is /%70ayment/…: no route; decoded twice it would be the
        # payment path, judged as neither. Refused, no reader after the balancer can differ.
        "/%2570ayment/cybersource/notify/",
        # Escaped slashes that make a dot segment or an empty one once decoded.
        "/api%2F..%2Fpayment/cybersource/notify/",
        "/%2Fpayment/cybersource/notify/",
        # Malformed escapes: no one decoding to judge.
        "/%7payment/cybersource/notify/",
        "/payment/cybersource/notify/%",
    ],
)
def test_a_path_whose_decoding_is_not_normal_is_refused_before_the_server(balancer, path):
    post = request("POST", path, "Content-Length: 0", "Connection: close")
    status, headers, body = ask(balancer, post)
    assert status == 400 and headers["content-type"] == "application/json"
    assert json.loads(body)["error"] == "bad_request"


def test_an_address_over_its_rate_gets_429_in_json_and_the_load_generators_do_not(balancer):
    request = b"GET /auto_auth HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    # 127.0.0.1 is the Locust hosts' address in this inventory: never limited.
    assert 429 not in {ask(balancer, request)[0] for _ in range(25)}
    statuses = [ask(balancer, request, source="127.0.0.2")[0] for _ in range(25)]
    assert 429 not in statuses[:20] and set(statuses[21:]) == {429}, statuses
    status, headers, body = ask(balancer, request, source="127.0.0.2")
    assert status == 429 and headers["retry-after"] == "10"
    assert json.loads(body)["error"] == "rate_limited"
    # Another path has its own budget.
    other = b"GET /api/v2/orders/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    assert ask(balancer, other, source="127.0.0.2")[0] != 429
