"""Oscar's dashboard at size: no page a staff member opens counts, sums or sorts a table that
grows with orders unless an index bounds what it reads, and the order list's keyset links walk
every order once.

Whether a statement is bounded is read from its text and the table's own indexes: an
aggregate of a growing table needs an equality (or IN list) on an indexed column; any other
read of it needs that, or a LIMIT with only indexed columns in its WHERE and ORDER BY, and
never an OFFSET. A table joined on its primary key reads one row per row it is joined to, so
the rule applies to the table it is joined to.
"""

import re
from html import unescape

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from oscar.core.loading import get_model

from common.contract.statuses import ORDER
from ecommerce.dashboard.orders import OrderListView

pytestmark = pytest.mark.django_db(transaction=True)
Order = get_model("order", "Order")

GROWING = (
    "auth_user",
    "basket_basket",
    "basket_line",
    "order_order",
    "order_line",
    "order_orderstatuschange",
    "fulfillment_fulfillmentattempt",
    "orders_seatclaim",
    "orders_idempotencyrecord",
    "counters_purchaseevent",
)
AGGREGATE = re.compile(r"\b(COUNT|SUM|AVG|MIN|MAX)\(|\bGROUP BY\b|\bDISTINCT\b")
ORDERS = 8
PAGE = 3


def indexed_columns(table: str) -> set[str]:
    """The leading column of each of ``table``'s indexes (the primary key's included)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SHOW INDEX FROM `{table}`")
        names = [column[0] for column in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        return {row["Column_name"] for row in rows if row["Seq_in_index"] == 1}


def unbounded_reads(sql: str, indexes: dict[str, set[str]]) -> list[str]:
    """Why ``sql`` may read an unbounded part of a growing table (empty when it cannot)."""
    problems = []
    where, _, order_by = sql.partition(" WHERE ")[2].partition(" ORDER BY ")
    for table in GROWING:
        if not re.search(rf"\b(FROM|JOIN) `{table}`", sql):
            continue
        if not re.search(rf"\bFROM `{table}`", sql) and re.search(
            rf"JOIN `{table}` ON \(`\w+`\.`\w+` = `{table}`\.`id`\)", sql
        ):
            continue
        key_lookup = re.search(rf"`{table}`\.`(\w+)` (= |IN \()", where)
        keyed = key_lookup is not None and key_lookup.group(1) in indexes[table]
        if AGGREGATE.search(sql) and not keyed:
            problems.append(f"aggregates {table} without an indexed equality")
        if " OFFSET " in sql:
            problems.append(f"skips rows of {table} with OFFSET")
        if not keyed and " LIMIT " not in sql:
            problems.append(f"reads {table} without a LIMIT or an indexed equality")
        for column in set(re.findall(rf"`{table}`\.`(\w+)`", where + " " + order_by)) - indexes[table]:
            problems.append(f"filters or sorts {table} on {column}, which no index leads")
    return problems


@pytest.fixture
def orders(api, lms, seats, learner) -> list[str]:
    """ORDERS orders of as many learners: their numbers, newest first."""
    placed = [api.buy(f"{learner}_{i}", [seats[i % len(seats)].sku]) for i in range(ORDERS)]
    assert all(response.status_code == 201 for response in placed)
    return [response.json()["order"]["number"] for response in placed][::-1]


@pytest.fixture
def dashboard(django_user_model) -> Client:
    """Logged in as staff made the way ``ensure_staff`` makes them (Oscar's order pages ask
    for order permissions as well as is_staff)."""
    staff = django_user_model.objects.create(username="dashboard", is_staff=True, is_superuser=True)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(staff)
    return client


@pytest.fixture
def small_pages(monkeypatch):
    """Pages of PAGE orders, so that a handful of orders spans several."""
    monkeypatch.setattr(OrderListView, "paginate_by", PAGE)


def open_page(dashboard, url) -> tuple[str, list[str]]:
    """The page's HTML and the SQL it ran, after asserting a 200."""
    with CaptureQueriesContext(connection) as captured:
        response = dashboard.get(url)
    assert response.status_code == 200, url
    return response.content.decode(), [query["sql"] for query in captured.captured_queries]


def link(html: str, name: str) -> str | None:
    found = re.search(rf'<a class="page-link" href="([^"]+)">\s*{name}\s*</a>', html)
    return "/dashboard/orders/" + unescape(found.group(1)) if found else None


def listed(html: str) -> list[str]:
    return re.findall(r'<td><a href="/dashboard/orders/[^/"]+/">([^<]+)</a></td>', html)


PAGES = [
    "/dashboard/",
    "/dashboard/orders/",
    "/dashboard/orders/?date_from=2020-01-01&date_to=2100-01-01",
    "/dashboard/orders/?order_number=1",
    "/dashboard/orders/?status=Fulfillment+Error",
    "/dashboard/orders/?status=Complete&date_from=2020-01-01",
    "/dashboard/orders/?status=Complete&name=Ann&product_title=Seat&partner_sku=X&upc=X&voucher=X",
    "/dashboard/orders/?response_format=csv",
    "/dashboard/orders/statistics/",
    "/dashboard/orders/statistics/?date_from=2020-01-01&date_to=2100-01-01",
    "/dashboard/reports/?report_type=product_analytics",
    "/dashboard/users/",
    "/dashboard/users/?search=&email=learner&name=Ann",
]


@pytest.mark.parametrize("url", PAGES)
def test_a_dashboard_page_reads_no_growing_table_unbounded(dashboard, orders, url):
    indexes = {table: indexed_columns(table) for table in GROWING}
    _, statements = open_page(dashboard, url)
    problems = {sql: unbounded_reads(sql, indexes) for sql in statements}
    assert {sql: why for sql, why in problems.items() if why} == {}


def test_the_order_detail_reads_no_growing_table_unbounded(dashboard, orders):
    indexes = {table: indexed_columns(table) for table in GROWING}
    html, statements = open_page(dashboard, f"/dashboard/orders/{orders[0]}/")
    assert orders[0] in html
    problems = {sql: unbounded_reads(sql, indexes) for sql in statements}
    assert {sql: why for sql, why in problems.items() if why} == {}


def test_the_bounds_check_flags_what_oscar_ran():
    """The check itself: the statements Oscar's own list and index ran are caught."""
    indexes = {"order_order": {"id", "number", "date_placed"}, **{t: {"id"} for t in GROWING}}
    count = "SELECT COUNT(*) AS `__count` FROM `order_order`"
    page = "SELECT `order_order`.`id` FROM `order_order` ORDER BY `order_order`.`id` LIMIT 20 OFFSET 40"
    status = "SELECT `order_order`.`id` FROM `order_order` WHERE `order_order`.`status` = 'x' LIMIT 21"
    keyed = "SELECT `order_line`.`id` FROM `order_line` WHERE `order_line`.`id` IN (1, 2)"
    joined = (
        "SELECT `order_order`.`id` FROM `order_order` LEFT OUTER JOIN `auth_user` "
        "ON (`order_order`.`user_id` = `auth_user`.`id`) WHERE `order_order`.`id` IN (1, 2)"
    )
    joined_on_other = joined.replace("= `auth_user`.`id`", "= `auth_user`.`email`")
    assert unbounded_reads(count, indexes) == [
        "aggregates order_order without an indexed equality",
        "reads order_order without a LIMIT or an indexed equality",
    ]
    assert unbounded_reads(page, indexes) == ["skips rows of order_order with OFFSET"]
    assert unbounded_reads(status, indexes) == [
        "filters or sorts order_order on status, which no index leads"
    ]
    assert unbounded_reads(keyed, indexes) == []
    assert unbounded_reads(joined, indexes) == []
    assert unbounded_reads(joined_on_other, indexes) == [
        "reads auth_user without a LIMIT or an indexed equality"
    ]


def test_next_and_previous_walk_every_order_once_newest_first(dashboard, orders, small_pages):
    pages, url = [], "/dashboard/orders/"
    while url:
        html, _ = open_page(dashboard, url)
        pages.append(listed(html))
        assert f"Page {len(pages)}<" in html
        url = link(html, "next")
    assert [number for page in pages for number in page] == orders
    assert [len(page) for page in pages] == [PAGE, PAGE, ORDERS - 2 * PAGE]

    back = []
    while html and (url := link(html, "previous")):
        html, _ = open_page(dashboard, url)
        back.append(listed(html))
    assert back == pages[-2::-1]


def test_the_next_link_ends_with_the_page_number(dashboard, orders, small_pages):
    """The browser suite follows "next" and expects ``page=N`` at the end of the address."""
    html, _ = open_page(dashboard, "/dashboard/orders/")
    assert re.search(r"[?&]page=2$", link(html, "next"))


def test_unindexed_filters_are_refused_with_a_message(dashboard, orders):
    html, _ = open_page(dashboard, "/dashboard/orders/?name=Ann&product_title=Seat")
    assert "Not filtered by Customer name: no index serves it" in html
    assert "Not filtered by Product name: no index serves it" in html
    assert "Customer name matches" not in html  # no filter badge claims what was not applied
    assert listed(html) == orders[:20]


def test_a_status_is_served_by_the_status_index_in_keyset_pages(dashboard, orders, small_pages):
    """What staff look for (orders in Fulfillment Error) is listed newest first and paged,
    each page bounded by an index that status leads."""
    indexes = {table: indexed_columns(table) for table in GROWING}
    failed = orders[1:5]
    Order.objects.filter(number__in=failed).update(status=ORDER.FULFILLMENT_ERROR)
    html, first = open_page(dashboard, "/dashboard/orders/?status=Fulfillment+Error")
    assert "Not filtered" not in html
    assert "Order status is Fulfillment Error" in html
    assert listed(html) == failed[:PAGE]
    html, second = open_page(dashboard, link(html, "next"))
    assert listed(html) == failed[PAGE:]
    assert link(html, "next") is None
    problems = {sql: unbounded_reads(sql, indexes) for sql in first + second}
    assert {sql: why for sql, why in problems.items() if why} == {}


def test_a_number_search_drops_the_status_with_a_message(dashboard, orders):
    html, _ = open_page(dashboard, f"/dashboard/orders/?order_number={orders[0][:-1]}&status=Complete")
    assert "Not filtered by Status: a number search walks the number index alone" in html
    assert "Order status is" not in html
    assert orders[0] in listed(html)


def test_an_order_number_prefix_is_served_by_the_number_index(dashboard, orders):
    html, _ = open_page(dashboard, f"/dashboard/orders/?order_number={orders[0][:-1]}")
    assert orders[0] in listed(html)
    assert "highest order number first" in html


def test_the_index_page_labels_its_estimates(dashboard, orders):
    html, _ = open_page(dashboard, "/dashboard/")
    assert "Orders in the last 24 hours" in html
    assert re.search(r"<th>Orders</th><td>\s*8\s*</td>", html)
    assert "estimate: InnoDB table statistics, not a count" in html


def test_the_order_statistics_sum_the_selected_orders(dashboard, orders):
    html, _ = open_page(dashboard, "/dashboard/orders/statistics/?date_from=2020-01-01")
    assert "Orders placed since 2020-01-01" in html
    assert re.search(r"<th>Orders</th><td>\s*8\s*</td>", html)
