"""The order API. Views orchestrate; validation lives in requests.py, the work in purchase.py
(Idempotency-Key claims and replays in idempotency.py) and fulfillment/api.py, whose fulfil()
both the purchase and the retry run.

Every view here manages its own transactions (``non_atomic_requests``): the purchase and the
retry call the LMS between two short transactions, and the read-only views have nothing to
commit, so wrapping them in ATOMIC_REQUESTS would only add a COMMIT per read.
"""

from django.db import transaction
from django.utils.decorators import method_decorator
from oscar.core.loading import get_model
from rest_framework import mixins, permissions, viewsets
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from common.contract.statuses import ORDER
from ecommerce.core.errors import ApiError
from ecommerce.courses.seats import stockrecords_for_skus
from ecommerce.fulfillment import api as fulfillment
from ecommerce.orders import openapi
from ecommerce.orders.purchase import purchase
from ecommerce.orders.representation import order_body
from ecommerce.orders.requests import idempotency_key, parse_basket_request, unknown_skus_error
from ecommerce.orders.throttle import LearnerPurchaseRate
from ecommerce.payment import processors

Order = get_model("order", "Order")

non_atomic = method_decorator(transaction.non_atomic_requests, name="dispatch")


@non_atomic
class BasketView(APIView):
    """POST /api/v2/baskets/ — create a basket and, with ``checkout: true``, place and fulfil
    its order (free), or answer the payment processor's signed form (paid)."""

    throttle_classes = [LearnerPurchaseRate]

    @openapi.create_basket
    def post(self, request):
        basket_request = parse_basket_request(request.data)
        processor = processors.get(basket_request.payment_processor)
        key = idempotency_key(request)
        found = stockrecords_for_skus(list(basket_request.skus))
        unknown = {i: sku for i, sku in enumerate(basket_request.skus) if sku not in found}
        if unknown:
            raise unknown_skus_error(unknown)
        stockrecords = [found[sku] for sku in basket_request.skus]
        answer = purchase(request.user, basket_request, stockrecords, key, processor)
        headers = {"Idempotent-Replayed": "true"} if answer.replayed else {}
        return Response(answer.body, status=answer.status, headers=headers)


class NewestFirst(CursorPagination):
    """Cursor pagination over the primary key: no COUNT(*) over a growing table (rule 7).

    Stricter than DRF's: a page_size that is not a whole number of at least 1 is refused
    (DRF silently uses the default), and a cursor must hold a primary key (DRF passes any
    position to the query, where a non-number fails as a server error).
    """

    ordering = "-id"
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        digits = raw.lstrip("0") if raw.isascii() and raw.isdigit() else ""
        if not digits:
            raise ValidationError({"page_size": ["Must be a whole number of at least 1."]})
        # Beyond three digits the answer is max_page_size anyway (and int() of thousands of
        # digits is refused by Python).
        return min(int(digits[:4]), self.max_page_size)

    def get_paginated_response_schema(self, schema):
        link = {"type": "string", "format": "uri", "nullable": True}
        return {
            "type": "object",
            "required": ["next", "previous", "results"],
            "properties": {"next": link, "previous": link, "results": schema},
            "additionalProperties": False,
        }

    def decode_cursor(self, request):
        cursor = super().decode_cursor(request)
        if cursor is not None and cursor.position is not None:
            position = cursor.position
            if not (position.isascii() and position.isdigit() and len(position) <= 18):
                raise NotFound(self.invalid_cursor_message)
        return cursor


@non_atomic
class OrderViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """GET /api/v2/orders/ and /api/v2/orders/{number}/ — a learner's own orders; staff see all."""

    lookup_field = "number"
    pagination_class = NewestFirst

    def get_queryset(self):
        return visible_orders(self.request.user)

    @openapi.list_orders
    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([order_body(o, o.lines.all()) for o in page])

    @openapi.read_order
    def retrieve(self, request, *args, **kwargs):
        order = self.get_object()
        return Response(order_body(order, order.lines.all()))


def visible_orders(user):
    """The orders ``user`` may read: their own; staff, every one."""
    orders = Order._default_manager.prefetch_related("lines")
    if user.is_staff:
        return orders
    if user.pk is None:  # a learner the service has not stored yet has no orders
        return orders.none()
    return orders.filter(user=user)


@non_atomic
class BasketOrderView(APIView):
    """GET /api/v2/baskets/{id}/order/ — the order placed from a basket, as Otto answered it
    (edX's 2015 client read a paid order back this way before it used the order number)."""

    @openapi.read_basket_order
    def get(self, request, basket_id):
        order = visible_orders(request.user).filter(basket_id=basket_id).first()
        if order is None:
            raise ApiError(404, "not_found", f"Basket {basket_id} has no order this learner can read.")
        return Response(order_body(order, order.lines.all()))


@non_atomic
class OrderFulfillView(APIView):
    """PUT /api/v2/orders/{number}/fulfill/ — retry the fulfilment of an order in
    Fulfillment Error (staff only). Any other status answers 406 and changes nothing."""

    permission_classes = [permissions.IsAdminUser]

    @openapi.fulfill_order
    def put(self, request, number):
        order = Order._default_manager.select_related("user").filter(number=number).first()
        if order is None:
            raise ApiError(404, "not_found", f"No order {number}.")
        try:
            fulfillment.retry(order)
        except fulfillment.NotRetryable:
            current = Order._default_manager.filter(pk=order.pk).values_list("status", flat=True).first()
            raise ApiError(
                406,
                "not_retryable",
                f"Order {number} is {current}; only orders in {ORDER.FULFILLMENT_ERROR} can be retried.",
                order_status=current,
            ) from None
        return Response(order_body(order, order.lines.all()))
