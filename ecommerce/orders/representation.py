"""How orders and baskets look in API answers. Plain functions over loaded objects: the
same shape for the order just placed and for an order read back, with no extra queries."""


def order_body(order, lines) -> dict:
    return {
        "number": str(order.number),
        "status": order.status,
        "total_excl_tax": str(order.total_excl_tax),
        "currency": order.currency,
        "date_placed": order.date_placed.isoformat(),
        "lines": [line_body(line) for line in lines],
    }


def line_body(line) -> dict:
    return {
        "sku": line.partner_sku,
        "title": line.title,
        "quantity": line.quantity,
        "line_price_excl_tax": str(line.line_price_excl_tax),
        "status": line.status,
    }


def basket_body(basket, order=None, lines=()) -> dict:
    return {"id": basket.id, "order": order_body(order, lines) if order is not None else None}
