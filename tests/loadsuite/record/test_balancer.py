"""The load balancer's figures: HAProxy's stats CSV read into per-server request counts and
states, per step and for the run, and the report's "Load balancer" section.

The CSV files were captured from HAProxy 2.6 (Debian bookworm's, as roles/haproxy installs it)
with the role's configuration in front of two servers on 127.0.0.1: one drained while the
other was down, then one up while the other was in maintenance."""

import base64
import http.server
import threading
from pathlib import Path

import pytest

from locustfiles.suite import report
from locustfiles.suite.record import balancer
from locustfiles.suite.report import sections
from tests.loadsuite import synthetic

CAPTURED = Path(__file__).parent / "haproxy"
USER, PASSWORD = "stats", "test-only-stats-password"


def captured(name: str) -> str:
    return (CAPTURED / name).read_text()


def test_each_server_of_the_backend_with_its_requests_sessions_and_state():
    servers = balancer.parse(captured("drain-and-down.csv"))
    assert set(servers) == {"ecommerce-1", "ecommerce-2"}  # not FRONTEND, BACKEND or the stats proxy
    assert servers["ecommerce-1"] == {
        "requests": 3,
        "sessions": 0,
        "status": "DRAIN",
        "state": "DRAIN",
        "check_status": "L7OK",
        "check_code": 200,
        "downtime": 2,
    }
    assert servers["ecommerce-2"]["status"] == "DOWN"
    assert servers["ecommerce-2"]["check_status"] == "L4CON"  # connection refused
    assert servers["ecommerce-2"]["check_code"] is None


def test_a_server_in_maintenance_has_no_check_status():
    servers = balancer.parse(captured("up-and-maint.csv"))
    assert servers["ecommerce-1"]["status"] == "UP"
    assert servers["ecommerce-1"]["requests"] == 124
    assert servers["ecommerce-2"]["status"] == "MAINT"
    assert servers["ecommerce-2"]["requests"] == 118
    assert servers["ecommerce-2"]["check_status"] == ""


def test_a_csv_without_the_backend_is_unreadable():
    with pytest.raises(balancer.Unreadable, match="no server of backend 'orders'"):
        balancer.parse(captured("up-and-maint.csv"), backend="orders")


def test_transitional_states_read_as_their_direction():
    header = "# pxname,svname,scur,stot,status,check_status,check_code,downtime\n"
    text = header + (
        "ecommerce,a,1,10,UP 1/2,* L7STS,503,0\n"
        "ecommerce,b,0,5,DOWN 1/2,L7OK,200,3\n"
        "ecommerce,c,0,0,MAINT (via ecommerce/a),,,\n"
        "ecommerce,d,0,7,no check,,,\n"
    )
    servers = balancer.parse(text)
    statuses = {name: server["status"] for name, server in servers.items()}
    assert statuses == {"a": "UP", "b": "DOWN", "c": "MAINT", "d": "UP"}
    assert servers["a"]["state"] == "UP 1/2"
    assert servers["a"]["check_status"] == "L7STS"  # "* ": a check under way


def step(index: int, before: dict, after: dict) -> dict:
    return {"index": index, "label": f"{10 * (index + 1)} users", "balancer": balancer.reading(before, after)}


def snapshot(**requests) -> dict:
    return {
        "servers": {
            name: {"requests": count, "sessions": 0, "status": "UP", "check_status": "L7OK", "downtime": 0}
            for name, count in requests.items()
        }
    }


def test_a_step_counts_the_requests_sent_to_each_server_between_its_readings():
    step = balancer.reading(snapshot(a=100, b=90), snapshot(a=160, b=130))
    assert step["requests"] == {"a": 60, "b": 40}
    assert step["servers"]["a"] == {"status": "UP", "check_status": "L7OK", "sessions": 0, "downtime": 0}
    assert "reset" not in step


def test_a_reloaded_balancer_counts_from_zero_and_says_so():
    step = balancer.reading(snapshot(a=100, b=90), snapshot(a=7, b=95))
    assert step["requests"] == {"a": 7, "b": 5}
    assert step["reset"] == ["a"]


def test_a_server_added_during_the_step_counts_from_zero():
    assert balancer.reading(snapshot(a=10), snapshot(a=12, b=4))["requests"] == {"a": 2, "b": 4}


def test_an_unread_step_has_the_reason_and_no_counts():
    assert balancer.reading(snapshot(a=1), {"error": "refused"}) == {"error": "refused"}
    step = balancer.reading({"error": "refused"}, snapshot(a=5))
    assert step["requests"] == {"a": 5} and step["from"] == "the first reading"


def test_the_run_summary_adds_the_steps_and_shares_them_out():
    rows = [
        step(0, snapshot(a=0, b=0), snapshot(a=30, b=10)),
        {"index": 1, "label": "20 users", "balancer": {"error": "timed out"}},
        step(2, snapshot(a=30, b=10), snapshot(a=60, b=50)),
        {"index": 3, "label": "no reading"},
    ]
    found = balancer.summary(rows)
    assert found["servers"] == ["a", "b"]
    assert found["requests"] == {"a": 60, "b": 50}
    assert found["share_percent"] == {"a": 54.5, "b": 45.5}
    assert [step["index"] for step in found["steps"]] == [0, 1, 2]
    assert found["unread_steps"] == [1]
    assert found["at_end"]["b"]["status"] == "UP"
    assert balancer.summary([{"index": 0}]) is None


def test_unset_url_reads_nothing():
    assert balancer.BalancerStats.from_env({}) is None


@pytest.fixture
def stats_page():
    """The captured CSV behind basic auth, as HAProxy's stats page serves it."""
    body = captured("up-and-maint.csv").encode()
    wanted = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            ok = self.path == "/stats;csv" and self.headers.get("Authorization") == wanted
            self.send_response(200 if ok else 401)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            if ok:
                self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/stats;csv"
    httpd.shutdown()
    httpd.server_close()


def test_the_page_is_read_with_the_read_only_user(stats_page):
    stats = balancer.BalancerStats.from_env(
        {"BALANCER_STATS_URL": stats_page, "BALANCER_STATS_PASSWORD": PASSWORD}  # user: its default
    )
    taken = stats.snapshot()
    assert taken["servers"]["ecommerce-1"]["requests"] == 124


def test_a_refused_password_is_a_reason_not_an_exception(stats_page):
    taken = balancer.BalancerStats(stats_page, USER, "wrong").snapshot()
    assert "servers" not in taken and "answered 401" in taken["error"]


def test_a_page_that_does_not_answer_is_a_reason():
    taken = balancer.BalancerStats("http://127.0.0.1:9/stats;csv", USER, PASSWORD).snapshot()
    assert "servers" not in taken and taken["error"]


def test_the_report_shows_each_servers_requests_per_step_and_its_state():
    rows = [step(0, snapshot(a=0, b=0), snapshot(a=30, b=10))]
    found = sections.load_balancer({"balancer": balancer.summary(rows)})
    assert found["title"] == "Load balancer"
    tables = [block for block in found["blocks"] if block.get("kind") == "table"]
    texts = [[c["text"] for c in row] for t in tables for row in t["rows"]]
    assert ["10 users", "30", "10"] in texts
    assert ["all", "30", "10"] in texts
    assert ["a", "UP", "L7OK", "0", "0"] in texts


def test_a_run_without_a_balancer_has_no_such_section(tmp_path):
    assert sections.load_balancer({}) is None
    p, recorder, _, _ = synthetic.recorded()
    report.write(synthetic.summary_for(p, recorder), tmp_path)
    assert "Load balancer" not in (tmp_path / "report.md").read_text()


def test_the_run_folder_has_the_balancer_in_summary_and_reports(tmp_path):
    p, recorder, _, _ = synthetic.recorded()
    summary = synthetic.summary_for(p, recorder)
    for number, row in enumerate(summary["steps"]):
        row["balancer"] = balancer.reading(snapshot(a=0, b=0), snapshot(a=10 * (number + 1), b=number + 1))
    summary["balancer"] = balancer.summary(summary["steps"])
    report.write(summary, tmp_path)
    markdown = (tmp_path / "report.md").read_text()
    assert "Load balancer" in markdown and "| requests a | requests b |" in markdown
    assert "Load balancer" in (tmp_path / "report.html").read_text()
