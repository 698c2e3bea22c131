"""common.http_client against a real HTTP server on 127.0.0.1: connections are kept and reused,
ended by the client after IDLE_SECONDS, and failures are Timeout or RequestError."""

import http.server
import socket
import threading

import pytest

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
    assert "NewConnectionError" in str(raised.value)


def test_no_answer_in_time_is_a_timeout():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        with pytest.raises(http_client.Timeout):
            http_client.post(f"http://127.0.0.1:{listener.getsockname()[1]}/x", json={}, timeout=0.3)
