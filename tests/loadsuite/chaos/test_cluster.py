"""The faults across hosts (locustfiles/suite/chaos/cluster.py): what can be tested without a
cluster (tests/cluster/test_faults.py plays the faults on one)."""

from locustfiles.suite.chaos import cluster


def test_request_logs_are_read_in_start_order_and_cut_lines_skipped(tmp_path):
    (tmp_path / "requests-1.csv").write_text("12.5,30.000,/b,1,201,1\n11.0,5.000,/a,0,502,0\n13.0,1.0\n")
    (tmp_path / "requests-2.csv").write_text("11.5,7.000,/a,0,0,0\n")
    found = cluster.read_requests(sorted(tmp_path.glob("*.csv")))
    assert [(r.start, r.ok, r.status, r.json) for r in found] == [
        (11.0, False, 502, False),
        (11.5, False, 0, False),
        (12.5, True, 201, True),
    ]
