"""Looking seats up in Oscar's catalogue: by SKU for a basket, by product for fulfilment."""

from oscar.core.loading import get_model

from ecommerce.courses.definition import COURSE_ATTRIBUTE, MODE_ATTRIBUTE

StockRecord = get_model("partner", "StockRecord")


def stockrecords_for_skus(skus: list[str]) -> dict[str, "StockRecord"]:
    """SKU -> stock record, with product, class and partner loaded; unknown SKUs are absent."""
    records = StockRecord._default_manager.filter(partner_sku__in=skus).select_related(
        "product__product_class", "partner"
    )
    return {record.partner_sku: record for record in records}


def enrollment_target(product) -> tuple[str | None, str | None]:
    """(course id, mode) a seat product enrols its buyer in; None where the product lacks it."""
    values = {
        value.attribute.code: value.value
        for value in product.attribute_values.all()
        if value.attribute.code in (COURSE_ATTRIBUTE, MODE_ATTRIBUTE)
    }
    return values.get(COURSE_ATTRIBUTE), values.get(MODE_ATTRIBUTE)
