"""The floor's arithmetic: per service, the real CPU per purchase against what the purchase's work
needs, and how many times the floor the real figure is.

    ecommerce, lms_stub   floor = HTTP floor + SQL floor (client)
                          HTTP floor = each hop it serves (the bare server's CPU per request)
                                     + the client's side of each hop it makes
    mariadb               floor = SQL floor (server): mariadbd's CPU replaying both services'
                          statements (each service's share is shown in its row, in parentheses)
    rollup                no floor: the purchase counter's rollup is a background job
    total                 the real figures summed against the floors summed

Everything else, real - floor, is the rest: framework, middleware, serialisation, Oscar's
machinery, an agent. The goal it is read against: each service within 2 x its floor.
"""

from collections.abc import Mapping

from floor.hops import HopCost
from floor.replay import SqlCost
from locustfiles.suite.core import blocks

SERVICES = ("ecommerce", "lms_stub")
DATABASE = "mariadb"
BACKGROUND = "rollup"
GOAL = 2.0  # times the floor a service should stay within


def http_floor(service: str, hops: list[HopCost]) -> float:
    """The hops ``service`` answers (server side) and those it makes (client side)."""
    served = sum(hop.server_ms for hop in hops if hop.server == service)
    made = sum(hop.client_ms for hop in hops if hop.caller == service)
    return served + made


def times(real: float | None, floor: float | None) -> float | None:
    """real / floor to one decimal; None when either is unknown or there is no floor."""
    if real is None or not floor:
        return None
    return round(real / floor, 1)


def phrase(row: Mapping) -> str:
    """ "ecommerce: 9.1 ms, 4.3 × the floor (2.1 ms)"."""
    if row["times"] is None:
        return f"{row['service']}: no floor to hold {fmt(row['real_ms'])} ms against"
    real, floor = fmt(row["real_ms"]), fmt(row["floor_ms"])
    return f"{row['service']}: {real} ms, {row['times']:.1f} × the floor ({floor} ms)"


def fmt(value: float | None) -> str:
    return blocks.DASH if value is None else f"{value:.2f}"


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _row(service: str, real: float | None, floor: float | None, **parts: float | None) -> dict:
    """``parts``: http, client, server (ms; None where the row has none)."""
    return {
        "service": service,
        "real_ms": real,
        "http_floor_ms": _ms(parts.get("http")),
        "sql_client_ms": _ms(parts.get("client")),
        "sql_server_ms": _ms(parts.get("server")),
        "floor_ms": _ms(floor),
        "rest_ms": None if real is None or floor is None else round(real - floor, 3),
        "times": times(real, floor),
    }


def rows(real: Mapping[str, float | None], hops: list[HopCost], sql: Mapping[str, SqlCost]) -> list[dict]:
    """One row per service, MariaDB, the rollup, then the total."""
    found = []
    for service in SERVICES:
        http, client, server = http_floor(service, hops), sql[service].client_ms, sql[service].server_ms
        found.append(_row(service, real.get(service), http + client, http=http, client=client, server=server))
    server = sum(sql[service].server_ms for service in SERVICES)
    found.append(_row(DATABASE, real.get(DATABASE), server, server=server))
    found.append(_row(BACKGROUND, real.get(BACKGROUND), None))
    return [*found, total(found)]


def total(found: list[dict]) -> dict:
    """The whole purchase: every real figure summed (unknown if a service's or MariaDB's is),
    against every floor summed."""
    needed = [row["real_ms"] for row in found if row["service"] != BACKGROUND]
    real = None if None in needed else round(sum(row["real_ms"] or 0.0 for row in found), 3)

    def summed(key: str, services: tuple[str, ...]) -> float:
        return sum(row[key] or 0.0 for row in found if row["service"] in services)

    return _row(
        "total",
        real,
        summed("floor_ms", (*SERVICES, DATABASE)),
        http=summed("http_floor_ms", SERVICES),
        client=summed("sql_client_ms", SERVICES),
        server=summed("sql_server_ms", (DATABASE,)),
    )


HEADERS = [
    "service",
    "real ms",
    "HTTP floor",
    "SQL floor: client",
    "SQL floor: server",
    "floor",
    "real/floor",
]


def table_block(found: list[dict]) -> dict:
    """The table as a block of the report model; a service's share of mariadbd's CPU in
    parentheses (it is counted in MariaDB's row)."""

    def server(row: dict) -> str:
        value = fmt(row["sql_server_ms"])
        return f"({value})" if row["service"] in SERVICES and row["sql_server_ms"] is not None else value

    body = [
        [
            row["service"],
            blocks.cell(fmt(row["real_ms"]), "num"),
            blocks.cell(fmt(row["http_floor_ms"]), "num"),
            blocks.cell(fmt(row["sql_client_ms"]), "num"),
            blocks.cell(server(row), "num"),
            blocks.cell(fmt(row["floor_ms"]), "num"),
            blocks.cell(blocks.DASH if row["times"] is None else f"{row['times']:.1f} ×", "num"),
        ]
        for row in found
    ]
    return blocks.table(HEADERS, body, caption="CPU ms per free purchase")


def hop_block(hops: list[HopCost]) -> dict:
    body = [
        [hop.hop, hop.status, hop.answer_bytes, f"{hop.server_ms:.3f}", f"{hop.client_ms:.3f}"]
        for hop in hops
    ]
    return blocks.table(
        ["hop", "status", "answer bytes", "server ms", "client ms"], body, caption="HTTP floor per hop"
    )


def lines(found: list[dict], hops: list[HopCost]) -> list[str]:
    """The hops' table, the floor's table and a line per service, for a terminal."""
    out = [*blocks.plain(hop_block(hops)), "", *blocks.plain(table_block(found)), ""]
    out += [phrase(row) for row in found if row["service"] != BACKGROUND]
    over = [row["service"] for row in found if row["service"] in SERVICES and (row["times"] or 0) > GOAL]
    if over:
        out.append(f"over {GOAL:g} × the floor: {', '.join(over)}")
    return out
