"""common.http_client against a real HTTP server on 127.0.0.1: connections are kept and reused,
ended by the client after IDLE_SECONDS, and failures are Timeout or RequestError; over https it
trusts the private CA HTTP_CA_BUNDLE names, and only then."""

import datetime
import http.server
import ipaddress
import socket
import ssl
import threading

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from common import http_client


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


@pytest.fixture
def server():
    """An HTTP/1.1 server that keeps connections alive and counts the ones it accepts."""
    accepted = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            accepted.append(self.client_address)
            super().setup()

        def do_GET(self):
            body = b'{"ok": true}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", accepted
    httpd.shutdown()
    httpd.server_close()


def test_calls_reuse_one_kept_alive_connection(server):
    url, accepted = server
    replies = [http_client.get(url + "/x", timeout=2) for _ in range(5)]
    assert [r.status_code for r in replies] == [200] * 5
    assert replies[0].json() == {"ok": True}
    assert replies[0].headers["content-type"] == "application/json"
    assert len(accepted) == 1


def test_a_connection_idle_too_long_is_ended_by_the_client(server, monkeypatch):
    url, accepted = server
    monkeypatch.setattr(http_client, "IDLE_SECONDS", 0.0)
    http_client.get(url + "/x", timeout=2)
    http_client.get(url + "/x", timeout=2)
    assert len(accepted) == 2


def test_a_refused_connection_is_a_request_error_not_a_timeout():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(http_client.RequestError) as raised:
        http_client.post(f"http://127.0.0.1:{port}/x", json={}, timeout=1)
    assert not isinstance(raised.value, http_client.Timeout)
    assert "ConnectionRefusedError" in str(raised.value)


def test_no_answer_in_time_is_a_timeout():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        with pytest.raises(http_client.Timeout):
            http_client.post(f"http://127.0.0.1:{listener.getsockname()[1]}/x", json={}, timeout=0.3)


def _silent_listener(hold: list) -> tuple[socket.socket, list]:
    """A listener that accepts connections, reads what is sent and never answers; the list
    counts the connections it accepted."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    accepted = []

    def accept():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            accepted.append(conn)
            hold.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    return listener, accepted


@pytest.mark.parametrize("idempotent", [True, False])
def test_a_timeout_is_not_sent_again(idempotent):
    """The caller's timeout bounds the call: a slow server gets the request once, even an
    idempotent one (a read retry would double the time and the load)."""
    hold = []
    listener, accepted = _silent_listener(hold)
    try:
        with pytest.raises(http_client.Timeout):
            http_client.post(
                f"http://127.0.0.1:{listener.getsockname()[1]}/x", json={}, timeout=0.3, idempotent=idempotent
            )
        assert len(accepted) == 1
    finally:
        listener.close()
        for conn in hold:
            conn.close()


@pytest.fixture
def closes_first_connection():
    """A server that reads the first connection's request and closes it unanswered (as a
    kept-alive connection closed by the other side), and answers 200 on every later one."""
    accepted = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            accepted.append(conn)
            with conn:
                conn.recv(65536)
                if len(accepted) > 1:
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/x", accepted
    listener.close()


def test_a_closed_connection_is_sent_again_when_idempotent(closes_first_connection):
    url, accepted = closes_first_connection
    assert http_client.post(url, json={}, timeout=2, idempotent=True).status_code == 200
    assert len(accepted) == 2


def test_a_closed_connection_is_not_sent_again_when_not_idempotent(closes_first_connection):
    url, accepted = closes_first_connection
    with pytest.raises(http_client.RequestError) as raised:
        http_client.post(url, json={}, timeout=2)
    assert not isinstance(raised.value, http_client.Timeout)
    assert len(accepted) == 1


def _certificate(subject: str, issuer_key, issuer_name, key, *, ca: bool, ip: str | None = None):
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name or name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if ip:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]), critical=False
        )
    return builder.sign(issuer_key, hashes.SHA256())


@pytest.fixture
def private_ca_server(tmp_path):
    """An https server on 127.0.0.1 whose certificate a private CA signed (as a load balancer
    that ends TLS may have), and that CA's PEM file."""
    ca_key, server_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = _certificate("test-only CA", ca_key, None, ca_key, ca=True)
    leaf = _certificate("127.0.0.1", ca_key, ca.subject, server_key, ca=False, ip="127.0.0.1")
    pem = serialization.Encoding.PEM
    (tmp_path / "ca.pem").write_bytes(ca.public_bytes(pem))
    (tmp_path / "server.pem").write_bytes(
        leaf.public_bytes(pem)
        + server_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )

    resumed = []  # per connection: whether its handshake resumed an earlier session

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # kept alive, as a load balancer keeps them

        def setup(self):
            super().setup()
            resumed.append(self.request.session_reused)

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    httpd = Server(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "server.pem")
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"https://127.0.0.1:{httpd.server_address[1]}", tmp_path / "ca.pem", resumed
    httpd.shutdown()
    httpd.server_close()


def test_https_trusts_the_ca_bundle_it_is_given(private_ca_server, monkeypatch):
    url, ca_file, _ = private_ca_server
    http_client.close_all()  # connections made before the setting
    monkeypatch.setenv("HTTP_CA_BUNDLE", str(ca_file))
    assert http_client.get(url + "/health/", timeout=2).status_code == 200


def test_https_refuses_a_certificate_of_a_ca_it_was_not_given(private_ca_server, monkeypatch):
    url, _, _ = private_ca_server
    http_client.close_all()
    monkeypatch.delenv("HTTP_CA_BUNDLE", raising=False)
    with pytest.raises(http_client.RequestError, match="CERTIFICATE_VERIFY_FAILED"):
        http_client.get(url + "/health/", timeout=2)


def test_a_fresh_call_opens_a_connection_of_its_own_and_keeps_it_for_the_next(server):
    url, accepted = server
    http_client.get(url + "/x", timeout=2)
    http_client.get(url + "/x", fresh=True, timeout=2)
    assert len(accepted) == 2
    http_client.get(url + "/x", timeout=2)  # a kept one: the fresh call's, handed back
    assert len(accepted) == 2


def test_a_new_https_connection_resumes_the_session_of_the_last_one(private_ca_server, monkeypatch):
    url, ca_file, resumed = private_ca_server
    http_client.close_all()
    monkeypatch.setenv("HTTP_CA_BUNDLE", str(ca_file))
    for _ in range(3):  # each on a connection of its own, after the first was handed back
        assert http_client.get(url + "/health/", fresh=True, timeout=2).status_code == 200
    assert resumed == [False, True, True]
