"""Writing the seeded catalogue into Oscar: partner, the Seat product class, a free (honor)
and a paid (verified) seat per course. Running it again changes nothing that is already right."""

from django.contrib.sites.models import Site
from django.db import transaction
from oscar.core.loading import get_model

from common.contract.courses import (
    COURSE_ATTRIBUTE,
    CURRENCY,
    MODE_ATTRIBUTE,
    PARTNER_CODE,
    PARTNER_NAME,
    PRODUCT_CLASS_NAME,
    catalogue,
)

Partner = get_model("partner", "Partner")
ProductClass = get_model("catalogue", "ProductClass")
ProductAttribute = get_model("catalogue", "ProductAttribute")
ProductAttributeValue = get_model("catalogue", "ProductAttributeValue")
Product = get_model("catalogue", "Product")
StockRecord = get_model("partner", "StockRecord")


@transaction.atomic
def seed(courses: int, site_domain: str | None = None) -> dict[str, int]:
    """Create or correct the first ``courses`` seats. Returns counts of what was written."""
    if site_domain:
        Site.objects.update_or_create(pk=1, defaults={"domain": site_domain, "name": "ecommerce"})
    partner, _ = Partner.objects.get_or_create(code=PARTNER_CODE, defaults={"name": PARTNER_NAME})
    seat_class, attributes = _seat_class()
    existing = {
        record.partner_sku: record
        for record in StockRecord.objects.filter(partner=partner).select_related("product")
    }
    values = {
        (value.product_id, value.attribute_id): value
        for value in ProductAttributeValue.objects.filter(attribute__in=attributes.values())
    }
    counts = {"created": 0, "updated": 0}
    for seat in catalogue(courses):
        product, written = _seat_product(seat, existing.get(seat.sku), partner, seat_class)
        if written:
            counts[written] += 1
        for code, text in ((COURSE_ATTRIBUTE, seat.course_id), (MODE_ATTRIBUTE, seat.mode)):
            _attribute_value(product, attributes[code], text, values.get((product.pk, attributes[code].pk)))
    return {**counts, "courses": courses}


def _seat_class():
    """The Seat product class and its two attributes (course and mode), made if missing."""
    seat_class, _ = ProductClass.objects.update_or_create(
        name=PRODUCT_CLASS_NAME,
        defaults={"requires_shipping": False, "track_stock": False},
    )
    attributes = {
        code: ProductAttribute.objects.get_or_create(
            product_class=seat_class,
            code=code,
            defaults={"name": code.replace("_", " "), "type": ProductAttribute.TEXT, "required": True},
        )[0]
        for code in (COURSE_ATTRIBUTE, MODE_ATTRIBUTE)
    }
    return seat_class, attributes


def _seat_product(seat, record, partner, seat_class):
    """(the seat's product, "created" / "updated" / None): made with its stock record when the
    partner has no record of its SKU, its title and price corrected when they differ."""
    if record is None:
        product = Product.objects.create(
            structure=Product.STANDALONE,
            product_class=seat_class,
            title=seat.title,
            is_public=True,
        )
        StockRecord.objects.create(
            product=product,
            partner=partner,
            partner_sku=seat.sku,
            price_currency=CURRENCY,
            price=seat.price,
        )
        return product, "created"
    product = record.product
    if (product.title, record.price, record.price_currency) != (seat.title, seat.price, CURRENCY):
        Product.objects.filter(pk=product.pk).update(title=seat.title)
        StockRecord.objects.filter(pk=record.pk).update(price=seat.price, price_currency=CURRENCY)
        return product, "updated"
    return product, None


def _attribute_value(product, attribute, text: str, value) -> None:
    """The product's value of ``attribute`` made ``text`` (``value``: the one it has, if any)."""
    if value is None:
        ProductAttributeValue.objects.create(product=product, attribute=attribute, value_text=text)
    elif value.value_text != text:
        ProductAttributeValue.objects.filter(pk=value.pk).update(value_text=text)
