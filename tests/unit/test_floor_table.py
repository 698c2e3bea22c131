"""The floor's arithmetic (floor/table.py) and where its real figures come from (floor/real.py):
each service's floor is the hops it serves, the client's side of those it makes and its
driver's share of the SQL; MariaDB's is mariadbd's replaying both; real / floor to one decimal."""

import pytest

from floor import real, table
from floor.hops import HopCost
from floor.replay import SqlCost

HOPS = [
    HopCost("learner -> lms_stub GET /auto_auth", "lms_stub", None, 201, 299, 0.25, 0.17),
    HopCost("learner -> lms_stub POST /api/commerce/v0/baskets/", "lms_stub", None, 201, 382, 0.30, 0.19),
    HopCost("lms_stub -> ecommerce POST /api/v2/baskets/", "ecommerce", "lms_stub", 201, 303, 0.40, 0.20),
    HopCost(
        "ecommerce -> lms_stub POST /api/enrollment/v1/enrollment",
        "lms_stub",
        "ecommerce",
        200,
        140,
        0.35,
        0.10,
    ),
]
SQL = {
    "ecommerce": SqlCost("ecommerce", 11, 1.5, 2.0),
    "lms_stub": SqlCost("lms_stub", 3, 0.5, 1.0),
}
REAL = {"ecommerce": 8.4, "lms_stub": 4.2, "mariadb": 6.0, "rollup": 0.4}


def by_service(rows: list[dict]) -> dict[str, dict]:
    return {row["service"]: row for row in rows}


def test_a_services_http_floor_is_the_hops_it_serves_and_the_client_side_of_those_it_makes():
    # lms_stub serves the learner's two hops and the enrollment, and makes the order call.
    assert table.http_floor("lms_stub", HOPS) == pytest.approx(0.25 + 0.30 + 0.35 + 0.20)
    # ecommerce serves the order call and makes the enrollment call; the learner's client is Locust's.
    assert table.http_floor("ecommerce", HOPS) == pytest.approx(0.40 + 0.10)


def test_each_row_holds_the_real_figure_against_its_floor():
    rows = by_service(table.rows(REAL, HOPS, SQL))
    ecommerce = rows["ecommerce"]
    assert ecommerce["http_floor_ms"] == pytest.approx(0.5)
    assert ecommerce["sql_client_ms"] == 1.5 and ecommerce["sql_server_ms"] == 2.0
    assert ecommerce["floor_ms"] == pytest.approx(2.0)  # its HTTP floor and its driver's share
    assert ecommerce["rest_ms"] == pytest.approx(6.4)
    assert ecommerce["times"] == 4.2
    assert rows["lms_stub"]["floor_ms"] == pytest.approx(1.1 + 0.5)
    assert rows["lms_stub"]["times"] == pytest.approx(2.6)


def test_mariadbs_floor_is_mariadbd_replaying_both_services_statements():
    mariadb = by_service(table.rows(REAL, HOPS, SQL))["mariadb"]
    assert mariadb["floor_ms"] == pytest.approx(3.0)
    assert mariadb["http_floor_ms"] is None and mariadb["sql_client_ms"] is None
    assert mariadb["times"] == 2.0


def test_the_rollup_has_no_floor_and_the_total_holds_everything_against_every_floor():
    rows = by_service(table.rows(REAL, HOPS, SQL))
    assert rows["rollup"]["floor_ms"] is None and rows["rollup"]["times"] is None
    total = rows["total"]
    assert total["real_ms"] == pytest.approx(8.4 + 4.2 + 6.0 + 0.4)
    assert total["floor_ms"] == pytest.approx(2.0 + 1.6 + 3.0)
    assert total["http_floor_ms"] == pytest.approx(0.5 + 1.1)
    assert total["sql_client_ms"] == pytest.approx(2.0) and total["sql_server_ms"] == pytest.approx(3.0)
    assert total["times"] == pytest.approx(round(19.0 / 6.6, 1))


def test_the_total_is_unknown_when_a_services_real_figure_is():
    rows = by_service(table.rows({**REAL, "lms_stub": None}, HOPS, SQL))
    assert rows["total"]["real_ms"] is None and rows["total"]["times"] is None
    assert rows["lms_stub"]["times"] is None and rows["ecommerce"]["times"] == 4.2
    # The rollup's figure alone unknown leaves the total known: it has no floor to miss.
    assert by_service(table.rows({**REAL, "rollup": None}, HOPS, SQL))["total"]["real_ms"] == pytest.approx(
        18.6
    )


@pytest.mark.parametrize(
    "real_ms, floor_ms, expected", [(9.1, 2.1, 4.3), (2.0, 2.0, 1.0), (None, 2.0, None), (3.0, 0, None)]
)
def test_real_over_floor_is_one_decimal_and_unknown_without_either(real_ms, floor_ms, expected):
    assert table.times(real_ms, floor_ms) == expected


def test_the_terminal_says_x_times_the_floor_and_who_is_over_the_goal():
    rows = table.rows(REAL, HOPS, SQL)
    said = table.lines(rows, HOPS)
    assert "ecommerce: 8.40 ms, 4.2 × the floor (2.00 ms)" in said
    assert "mariadb: 6.00 ms, 2.0 × the floor (3.00 ms)" in said
    assert said[-1] == "over 2 × the floor: ecommerce, lms_stub"
    header = next(line for line in said if line.startswith("service"))
    assert header.split() == [
        "service",
        "real",
        "ms",
        "HTTP",
        "floor",
        "SQL",
        "floor:",
        "client",
        "SQL",
        "floor:",
        "server",
        "floor",
        "real/floor",
    ]
    ecommerce = said[said.index(header) + 1]
    assert ecommerce.split() == ["ecommerce", "8.40", "0.50", "1.50", "(2.00)", "2.00", "4.2", "×"]


def test_a_runs_summary_gives_the_real_figures_and_says_what_they_are_per():
    summary = {
        "cpu_ms_per_purchase": {**REAL, "haproxy": 0.7, "services": 19.7, "locust": 3.0},
        "cpu_accounting": {"mix": {"free": 1020, "paid": 20}},
    }
    found = real.from_summary(summary, "the load run x")
    assert found.ms == REAL and found.source == "the load run x"
    assert any("1020 free and 20 paid purchases" in note for note in found.notes)
    assert any("load balancer spent 0.7 ms" in note for note in found.notes)
    assert real.from_summary({"cpu_ms_per_purchase": REAL}, "y").notes == []


def test_a_summary_without_cpu_per_purchase_is_refused():
    with pytest.raises(ValueError, match="no CPU per purchase"):
        real.from_summary({"cpu_ms_per_purchase": dict.fromkeys(REAL)}, "the load run z")
    with pytest.raises(ValueError, match="no CPU per purchase"):
        real.from_summary({}, "the load run z")


def test_a_run_folder_is_read_through_its_summary(tmp_path):
    (tmp_path / "summary.json").write_text('{"cpu_ms_per_purchase": {"ecommerce": 8.4, "mariadb": 6.0}}')
    found = real.from_run(tmp_path)
    assert found.ms == {"ecommerce": 8.4, "lms_stub": None, "mariadb": 6.0, "rollup": None}
    assert found.source == f"the load run {tmp_path.name}"
    with pytest.raises(ValueError, match="cannot read"):
        real.from_run(tmp_path / "missing")
