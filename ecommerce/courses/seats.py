"""Looking seats up in Oscar's catalogue: by SKU for a basket, by product for fulfilment."""

from django.db.models import OuterRef, Subquery
from oscar.core.loading import get_model

from common.contract.courses import COURSE_ATTRIBUTE, MODE_ATTRIBUTE

StockRecord = get_model("partner", "StockRecord")
ProductAttributeValue = get_model("catalogue", "ProductAttributeValue")


def _attribute(code: str) -> Subquery:
    values = ProductAttributeValue._default_manager.filter(
        product=OuterRef("product_id"), attribute__code=code
    )
    return Subquery(values.values("value_text")[:1])


def stockrecords_for_skus(skus: list[str]) -> dict[str, "StockRecord"]:
    """SKU -> stock record, with product, class and partner loaded and the course and mode
    each seat enrols in read in the same query; unknown SKUs are absent."""
    records = (
        StockRecord._default_manager.filter(partner_sku__in=skus)
        .select_related("product__product_class", "partner")
        .annotate(course=_attribute(COURSE_ATTRIBUTE), mode=_attribute(MODE_ATTRIBUTE))
    )
    found = {}
    for record in records:
        record.product.enrollment_target = (record.course, record.mode)
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
