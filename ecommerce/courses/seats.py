"""Looking seats up in Oscar's catalogue: by SKU for a basket, by product for fulfilment."""

import functools

from django.db import connection
from oscar.core.loading import get_model

from common import rows
from common.contract.courses import COURSE_ATTRIBUTE, MODE_ATTRIBUTE

StockRecord = get_model("partner", "StockRecord")
ProductAttributeValue = get_model("catalogue", "ProductAttributeValue")
ProductAttribute = get_model("catalogue", "ProductAttribute")
Product = get_model("catalogue", "Product")
ProductClass = get_model("catalogue", "ProductClass")
Partner = get_model("partner", "Partner")


@functools.cache
def _lookup_sql(count: int) -> tuple[str, list[tuple]]:
    """The one statement that reads ``count`` SKUs' stock records with their product, product
    class and partner, and the course and mode each seat enrols in; and, per model, where its
    values are in a row. Written out, not built by the ORM: the ORM spent about 2.5 ms of CPU
    composing this query on every purchase (docs/decisions/0049-the-full-loops-cpu-where-it.md)."""
    models = [
        (StockRecord, "s"),
        (Product, "p"),
        (ProductClass, "c"),
        (Partner, "r"),
    ]
    parts, select, start = [], [], 0
    for model, alias in models:
        width = len(model._meta.concrete_fields)
        parts.append((model, start, start + width))
        select.append(rows.columns(model, alias))
        start += width
    quote = connection.ops.quote_name
    table = {model: quote(model._meta.db_table) for model, _ in models}
    value_table = quote(ProductAttributeValue._meta.db_table)
    attribute_table = quote(ProductAttribute._meta.db_table)
    attribute = (
        f"(SELECT v.value_text FROM {value_table} v JOIN {attribute_table} a ON a.id = v.attribute_id "
        "WHERE v.product_id = p.id AND a.code = %s ORDER BY v.id LIMIT 1)"
    )
    sql = (
        f"SELECT {', '.join(select)}, {attribute}, {attribute} "
        f"FROM {table[StockRecord]} s "
        f"JOIN {table[Product]} p ON p.id = s.product_id "
        f"LEFT JOIN {table[ProductClass]} c ON c.id = p.product_class_id "
        f"JOIN {table[Partner]} r ON r.id = s.partner_id "
        f"WHERE s.partner_sku IN ({', '.join(['%s'] * count)})"
    )
    return sql, parts


def stockrecords_for_skus(skus: list[str]) -> dict[str, "StockRecord"]:
    """SKU -> stock record, with product, class and partner loaded and the course and mode
    each seat enrols in read in the same query; unknown SKUs are absent."""
    if not skus:
        return {}
    sql, parts = _lookup_sql(len(skus))
    with connection.cursor() as cursor:
        cursor.execute(sql, [COURSE_ATTRIBUTE, MODE_ATTRIBUTE, *skus])
        found_rows = cursor.fetchall()
    found = {}
    for row in found_rows:
        record, product, product_class, partner = (
            rows.make(model, row[start:end]) for model, start, end in parts
        )
        if product_class.pk is not None:
            product.product_class = product_class
        product.enrollment_target = (row[-2], row[-1])
        record.product, record.partner = product, partner
        found[record.partner_sku] = record
    return found


def enrollment_target(product) -> tuple[str | None, str | None]:
    """(course id, mode) a seat product enrols its buyer in; None where the product lacks it.

    Products loaded by stockrecords_for_skus carry it already; others are read here.
    """
    known = getattr(product, "enrollment_target", None)
    if known is not None:
        return known
    values = {
        value.attribute.code: value.value
        for value in product.attribute_values.select_related("attribute").filter(
            attribute__code__in=(COURSE_ATTRIBUTE, MODE_ATTRIBUTE)
        )
    }
    return values.get(COURSE_ATTRIBUTE), values.get(MODE_ATTRIBUTE)
