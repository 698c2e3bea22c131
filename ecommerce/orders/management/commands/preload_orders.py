"""ecommerce's half of the bulk preload: what N purchases through the full loop leave here.

Each purchase is of its course's free seat, as 50 of every 51 of edX's 2015 load tests were.
Per purchase, as the order path writes them (see ecommerce/orders/purchase.py): the learner,
a submitted basket with its line, the Complete order with its line and line price, the seat
claim, and the purchase already folded into Oscar's ProductRecord.num_purchases (the rollup
deletes events it folds, so none is left waiting). Each batch is one transaction with one
INSERT ... SELECT per table, so a batch is either all there or not at all; a preload that stops
resumes after its last batch. Run by ``make preload`` (locustfiles/suite/tools/preload.py), which
runs lms_stub's half at the same time; one JSON object per line on stdout.
"""

from django.conf import settings
from django.db import transaction
from oscar.core.loading import get_class, get_model

from common.contract import order_numbers
from common.contract import preload_plan as plan
from common.contract.courses import course_id, free_seats
from common.contract.statuses import LINE, ORDER
from common.preload_command import PreloadCommand
from ecommerce.counters.rollup import LOCK_NAME
from ecommerce.orders.models import SeatClaim

User = get_model("auth", "User")
Basket = get_model("basket", "Basket")
BasketLine = get_model("basket", "Line")
Order = get_model("order", "Order")
OrderLine = get_model("order", "Line")
LinePrice = get_model("order", "LinePrice")
ProductRecord = get_model("analytics", "ProductRecord")
StockRecord = get_model("partner", "StockRecord")
NoShippingRequired = get_class("shipping.methods", "NoShippingRequired")

SEATS = "preload_seat"
BATCH = "preload_batch"


class Command(PreloadCommand):
    help = "Write purchases in bulk (run by `make preload`); --status says how many are here."

    def prepare(self, cursor, options):
        cursor.execute("SET SESSION foreign_key_checks = 0")  # the rows are written consistent
        seat_table(cursor, options["courses"])

    def write_batch(self, cursor, first_index, count, options):
        write_batch(cursor, first_index, count, options)


def seat_table(cursor, courses: int) -> None:
    """A temporary table of the first ``courses`` seats (course number -> what a line holds),
    read from the catalogue so that preloaded lines match the seeded products exactly."""
    wanted = {seat.sku: seat for seat in free_seats(courses)}
    records = {
        wanted[record.partner_sku].course_id: record
        for record in StockRecord._default_manager.filter(partner_sku__in=wanted).select_related(
            "product", "partner"
        )
    }
    missing = [n for n in range(1, courses + 1) if course_id(n) not in records]
    if missing:
        raise ValueError(
            f"the catalogue lacks {len(missing)} of the first {courses} courses "
            f"(first missing: {course_id(missing[0])}); seed it with seed_catalog --courses {courses}"
        )
    cursor.execute(f"DROP TEMPORARY TABLE IF EXISTS {SEATS}")
    cursor.execute(
        f"CREATE TEMPORARY TABLE {SEATS} (course INT PRIMARY KEY, product_id INT, stockrecord_id INT, "
        "partner_id INT, partner_name VARCHAR(128), sku VARCHAR(128), title VARCHAR(255), "
        "price DECIMAL(12, 2), currency VARCHAR(12))"
    )
    cursor.executemany(
        f"INSERT INTO {SEATS} VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        [
            (
                n,
                record.product_id,
                record.pk,
                record.partner_id,
                record.partner.name,
                record.partner_sku,
                record.product.title,
                record.price,
                record.price_currency,
            )
            for n in range(1, courses + 1)
            for record in [records[course_id(n)]]
        ],
    )


def next_ids(cursor, models) -> dict:
    """The highest id of each table: a batch's rows take the ids just above."""
    ids = {}
    for model in models:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {model._meta.db_table}")
        ids[model] = cursor.fetchone()[0]
    return ids


def write_batch(cursor, first_index: int, count: int, options) -> None:
    purchases = plan.purchases_sql(first_index, count, options)
    with transaction.atomic():
        # The rollup folds into the same ProductRecord rows; it skips its turn while we hold this.
        cursor.execute("SELECT GET_LOCK(%s, 30)", [LOCK_NAME])
        if cursor.fetchone()[0] != 1:
            raise ValueError("the counter rollup held its lock for 30 s; try again")
        try:
            ids = next_ids(cursor, (User, Basket, BasketLine, Order, OrderLine, LinePrice, SeatClaim))
            # The batch's purchases with their seats, worked out once for the eight INSERTs.
            cursor.execute(f"DROP TEMPORARY TABLE IF EXISTS {BATCH}")
            cursor.execute(
                f"CREATE TEMPORARY TABLE {BATCH} (PRIMARY KEY (seq)) "
                f"SELECT p.seq, p.i, p.name, p.at, s.* FROM {purchases} AS p "
                f"JOIN {SEATS} AS s ON s.course = p.course"
            )
            rows = f"FROM {BATCH} AS p"
            for model, columns, values in [*_learner_rows(ids), *_order_rows(ids)]:
                cursor.execute(f"INSERT INTO {model._meta.db_table} ({columns}) SELECT {values} {rows}")
            cursor.execute(
                f"INSERT INTO {ProductRecord._meta.db_table} "
                "(product_id, num_views, num_basket_additions, num_purchases, score) "
                f"SELECT p.product_id, 0, 0, COUNT(*), 0 {rows} GROUP BY p.product_id "
                "ON DUPLICATE KEY UPDATE num_purchases = num_purchases + VALUES(num_purchases)"
            )
        finally:
            cursor.execute("SELECT RELEASE_LOCK(%s)", [LOCK_NAME])


def _learner_rows(ids: dict) -> list[tuple]:
    """(model, columns, values over the batch's rows ``p``) of each purchase's learner, basket
    and basket line; ids above ``ids``' highest, by the purchase's place in the batch."""
    user, basket = f"{ids[User]} + p.seq", f"{ids[Basket]} + p.seq"
    return [
        (
            User,
            "id, password, last_login, is_superuser, username, first_name, last_name, email, "
            "is_staff, is_active, date_joined",
            # An unusable password, as auto_auth's learners have ("!" and 40 characters).
            f"{user}, CONCAT('!', SHA1(CONCAT('preload-', p.i))), NULL, 0, p.name, '', '', "
            "CONCAT(p.name, '@example.com'), 0, 1, p.at",
        ),
        (
            Basket,
            "id, status, date_created, date_merged, date_submitted, owner_id",
            f"{basket}, '{Basket.SUBMITTED}', p.at, NULL, p.at, {user}",
        ),
        (
            BasketLine,
            "id, line_reference, quantity, price_currency, price_excl_tax, price_incl_tax, "
            "date_created, date_updated, basket_id, product_id, stockrecord_id, tax_code",
            f"{ids[BasketLine]} + p.seq, CONCAT(p.product_id, '_', p.stockrecord_id), 1, p.currency, "
            f"p.price, p.price, p.at, p.at, {basket}, p.product_id, p.stockrecord_id, NULL",
        ),
    ]


def _order_rows(ids: dict) -> list[tuple]:
    """(model, columns, values) of each purchase's order, its line and price, and its claim on
    the seat, as a completed checkout writes them."""
    user, basket = f"{ids[User]} + p.seq", f"{ids[Basket]} + p.seq"
    number = order_numbers.order_number_sql(settings.ORDER_NUMBER_PREFIX, basket)
    order, line = f"{ids[Order]} + p.seq", f"{ids[OrderLine]} + p.seq"
    shipping = NoShippingRequired()
    return [
        (
            Order,
            "id, number, currency, total_incl_tax, total_excl_tax, shipping_incl_tax, "
            "shipping_excl_tax, shipping_method, shipping_code, status, guest_email, date_placed, "
            "basket_id, billing_address_id, shipping_address_id, site_id, user_id, "
            "shipping_tax_code, analytics_tracked",
            f"{order}, {number}, p.currency, p.price, p.price, 0, 0, "
            f"'{shipping.name}', '{shipping.code}', '{ORDER.COMPLETE}', '', p.at, {basket}, NULL, "
            f"NULL, {settings.SITE_ID}, {user}, NULL, 0",
        ),
        (
            OrderLine,
            "id, partner_name, partner_sku, partner_line_reference, partner_line_notes, title, upc, "
            "quantity, line_price_incl_tax, line_price_excl_tax, "
            "line_price_before_discounts_incl_tax, line_price_before_discounts_excl_tax, "
            "unit_price_incl_tax, unit_price_excl_tax, status, "
            "order_id, partner_id, product_id, stockrecord_id, tax_code, allocation_cancelled, "
            "num_allocated",
            f"{line}, p.partner_name, p.sku, '', '', p.title, '', 1, p.price, p.price, p.price, "
            f"p.price, p.price, p.price, '{LINE.COMPLETE}', {order}, p.partner_id, p.product_id, "
            "p.stockrecord_id, NULL, 0, 1",
        ),
        (
            LinePrice,
            "id, quantity, price_incl_tax, price_excl_tax, shipping_incl_tax, shipping_excl_tax, "
            "line_id, order_id, tax_code",
            f"{ids[LinePrice]} + p.seq, 1, p.price, p.price, 0, 0, {line}, {order}, NULL",
        ),
        (
            SeatClaim,
            "id, user_id, product_id, order_id",
            f"{ids[SeatClaim]} + p.seq, {user}, p.product_id, {order}",
        ),
    ]
