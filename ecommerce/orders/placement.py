"""Turning validated seats into an Oscar basket and order, with Oscar's own building blocks.

Oscar's checkout re-reads the basket, looks for vouchers, offers and stock to allocate, and
checks the order number is free: queries a seat order does not need. Seats are sold one per
line with no shipping, no tax, no options, no offers and no vouchers through this API, so the
basket is written whole (its lines in one statement) and the order is placed from the lines
in hand by SeatOrderCreator, a subclass of Oscar's OrderCreator that uses its model-writing
methods and sends its order_placed signal. Call inside a transaction.

A paid basket is written frozen (Oscar's status for a basket awaiting payment) and placed later,
when the payment processor's notification arrives (ecommerce.payment): by then the catalogue's
price may have changed, so its order is priced from the prices its lines were written with
(AsAskedStrategy), the ones the learner was asked to pay.
"""

from decimal import Decimal

from django.conf import settings
from django.utils import timezone
from oscar.apps.order.signals import order_placed
from oscar.core import prices
from oscar.core.loading import get_class, get_model

from common import rows
from common.contract import order_numbers
from ecommerce.counters.recording import record_purchases

Basket = get_model("basket", "Basket")
BasketLine = get_model("basket", "Line")
LinePrice = get_model("order", "LinePrice")
DefaultStrategy = get_class("partner.strategy", "Default")
PurchaseInfo = get_class("partner.strategy", "PurchaseInfo")
FixedPrice = get_class("partner.prices", "FixedPrice")
OrderCreator = get_class("order.utils", "OrderCreator")
NoShippingRequired = get_class("shipping.methods", "NoShippingRequired")

ZERO = Decimal("0.00")


class SeatStrategy(DefaultStrategy):
    """Oscar's default pricing (first stock record, no tax), priced from the stock record a
    basket line already holds instead of fetching the product's stock records again."""

    def fetch_for_line(self, line, stockrecord=None):
        return self.fetch_for_product(line.product, stockrecord or line.stockrecord)


class AsAskedStrategy(SeatStrategy):
    """Prices a basket's lines at the prices they were written with (a frozen basket's, which its
    payment covers), not at the catalogue's prices of today."""

    def fetch_for_line(self, line, stockrecord=None):
        info = super().fetch_for_line(line, stockrecord)
        tax = None if line.price_incl_tax is None else line.price_incl_tax - line.price_excl_tax
        price = FixedPrice(line.price_currency, line.price_excl_tax, tax, tax_code=line.tax_code)
        return PurchaseInfo(price=price, availability=info.availability, stockrecord=info.stockrecord)


def seat_prices(stockrecords) -> list:
    """Oscar's price of each seat (no queries: the stock records are loaded)."""
    strategy = SeatStrategy()
    return [strategy.fetch_for_product(r.product, stockrecord=r).price for r in stockrecords]


def is_paid(stockrecords) -> bool:
    """A basket of these seats costs something: its checkout waits for a payment."""
    return sum((price.incl_tax for price in seat_prices(stockrecords)), ZERO) > ZERO


def amount_due(basket_lines) -> tuple[Decimal, str]:
    """What a basket's lines cost as written (tax included) and their currency."""
    total = sum(
        (
            (line.price_incl_tax if line.price_incl_tax is not None else line.price_excl_tax) * line.quantity
            for line in basket_lines
        ),
        ZERO,
    )
    return total, basket_lines[0].price_currency


def build_basket(user, stockrecords, status: str):
    """Write a basket holding one of each seat: the basket, then its lines in one INSERT, each
    statement composed once (common.rows.insert_all).

    ``status`` is Oscar's: Open (no checkout), Frozen (awaiting payment) or Submitted (its
    order is placed in the same transaction). Lines are bulk-inserted because Oscar's Line.save
    refuses to add lines to a basket that is not open.
    """
    basket = Basket(owner=user, status=status)
    if status == Basket.SUBMITTED:
        basket.date_submitted = timezone.now()
    basket.strategy = SeatStrategy()
    rows.insert_all([basket])
    lines = []
    for record in stockrecords:
        price = basket.strategy.fetch_for_product(record.product, stockrecord=record).price
        lines.append(
            BasketLine(
                basket=basket,
                line_reference=f"{record.product_id}_{record.pk}",
                product=record.product,
                stockrecord=record,
                quantity=1,
                price_currency=price.currency,
                price_excl_tax=price.excl_tax,
                price_incl_tax=price.incl_tax if price.is_tax_known else None,
                tax_code=getattr(price, "tax_code", None),
            )
        )
    rows.insert_all(lines)
    return basket, lines


class SeatOrderCreator(OrderCreator):
    """Places the order of a freshly written basket of seats."""

    def place_seat_order(self, basket, basket_lines, user):
        currency = basket_lines[0].price_currency
        total = prices.Price(
            currency=currency,
            excl_tax=sum((line.line_price_excl_tax_incl_discounts for line in basket_lines), ZERO),
            incl_tax=sum((line.line_price_incl_tax_incl_discounts for line in basket_lines), ZERO),
        )
        order = self.create_order_model(
            user,
            basket,
            shipping_address=None,
            shipping_method=NoShippingRequired(),
            shipping_charge=prices.Price(currency=currency, excl_tax=ZERO, incl_tax=ZERO),
            billing_address=None,
            total=total,
            order_number=order_numbers.order_number(settings.ORDER_NUMBER_PREFIX, basket.id),
            status=settings.OSCAR_INITIAL_ORDER_STATUS,
        )
        order.user = user
        order_lines = [self.create_line_models(order, line) for line in basket_lines]
        record_purchases(order_lines)
        order_placed.send(sender=self, order=order, user=user)
        return order, order_lines

    def create_line_attributes(self, order, order_line, basket_line):
        """Seats have no product options, so there are no line attributes to copy."""

    def create_line_price_models(self, order, order_line, basket_line):
        """The line's prices as Oscar breaks them down (one row per price and quantity), written
        in one statement composed once (common.rows.insert_all) instead of an ORM create per row.
        No model signals are sent for them; Oscar and this service listen to none."""
        rows.insert_all(
            [
                LinePrice(
                    order=order,
                    line=order_line,
                    quantity=quantity,
                    price_incl_tax=price_incl_tax,
                    price_excl_tax=price_excl_tax,
                    tax_code=basket_line.tax_code,
                )
                for price_incl_tax, price_excl_tax, quantity in basket_line.get_price_breakdown()
            ],
            returning_ids=False,
        )
