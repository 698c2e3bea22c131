"""Turning validated seats into an Oscar basket and order, through Oscar's own classes.

Seats need no shipping and carry no tax; offers and vouchers are not sold through this API,
so none are applied. Call inside a transaction.
"""

from oscar.core.loading import get_class, get_model

Basket = get_model("basket", "Basket")
Selector = get_class("partner.strategy", "Selector")
OrderCreator = get_class("order.utils", "OrderCreator")
OrderTotalCalculator = get_class("checkout.calculators", "OrderTotalCalculator")
NoShippingRequired = get_class("shipping.methods", "NoShippingRequired")


def build_basket(user, stockrecords):
    basket = Basket(owner=user)
    basket.strategy = Selector().strategy(user=user)
    basket.save()
    for record in stockrecords:
        basket.add_product(record.product, 1)
    return basket


def place_order(basket, user):
    """Place the basket's order and mark the basket submitted, as Oscar's checkout does."""
    shipping_method = NoShippingRequired()
    shipping_charge = shipping_method.calculate(basket)
    total = OrderTotalCalculator().calculate(basket, shipping_charge)
    order = OrderCreator().place_order(
        basket=basket,
        total=total,
        shipping_method=shipping_method,
        shipping_charge=shipping_charge,
        user=user,
    )
    basket.submit()
    return order
