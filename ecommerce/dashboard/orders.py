"""The dashboard's order list without COUNT(*): keyset pages, and only the filters an index
serves.

Oscar's list paginates with ``SELECT COUNT(*) FROM order_order`` plus OFFSET, sorts by any
column and filters on columns no index covers (customer name, product title, UPC, SKU,
voucher, payment method, status); on millions of orders each of these reads the whole table.
Here the list is newest first on the (date_placed, id) index, a date range narrows that same
index, a status (the one staff look for: Fulfillment Error) walks the (status, date_placed)
index in the same order, and an order-number prefix walks the unique index on number. Every
other filter is refused with a message that says why, rather than left to scan.
"""

from datetime import time

from django.contrib import messages
from django.utils.translation import gettext_lazy as _
from oscar.apps.dashboard.orders.views import OrderListView as OscarOrderListView
from oscar.core.utils import datetime_combine

from ecommerce.dashboard.keyset import keyset_page

NEWEST_FIRST = ("date_placed", "id")
BY_NUMBER = ("number",)
# Filters of Oscar's search form that no index on order_order or order_line serves.
UNINDEXED_FILTERS = ("name", "product_title", "upc", "partner_sku", "voucher", "payment_method")


class OrderListView(OscarOrderListView):
    template_name = "ecommerce_dashboard/order_list.html"

    def get_queryset(self):
        self.order_fields = NEWEST_FIRST
        queryset = self.base_queryset
        self.form = self.form_class(self.request.GET)
        if not self.form.is_valid():
            return queryset
        data = self.form.cleaned_data
        self.refuse(
            data,
            [name for name in UNINDEXED_FILTERS if data.get(name)],
            _("no index serves it on a table of millions of orders"),
        )
        if data["order_number"]:
            self.refuse(
                data,
                [name for name in ("date_from", "date_to", "status") if data.get(name)],
                _("a number search walks the number index alone; search by number, or by date and status"),
            )
            self.order_fields = BY_NUMBER
            return queryset.filter(number__istartswith=data["order_number"])
        if data["date_from"]:
            queryset = queryset.filter(date_placed__gte=datetime_combine(data["date_from"], time.min))
        if data["date_to"]:
            queryset = queryset.filter(date_placed__lt=datetime_combine(data["date_to"], time.max))
        if data["status"]:
            # order_order_status_placed (fulfillment migration 0002): status, then
            # date_placed, then the primary key, which is the list's own order.
            queryset = queryset.filter(status=data["status"])
        return queryset

    def refuse(self, data, names, reason):
        """Drop the filters ``names`` from the search (so no description claims them) and
        say so on the page."""
        for name in names:
            messages.warning(
                self.request,
                _("Not filtered by %(field)s: %(reason)s.")
                % {"field": self.form.fields[name].label, "reason": reason},
            )
            data[name] = None

    def paginate_queryset(self, queryset, page_size):
        """One keyset page, also for a CSV download (which is that page, never every order)."""
        self.page = keyset_page(queryset, self.order_fields, self.request.GET, self.paginate_by)
        return None, self.page, self.page.rows, True

    def get_paginate_by(self, queryset):
        return self.paginate_by

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["keyset"] = self.page
        ctx["newest_first"] = self.order_fields == NEWEST_FIRST
        return ctx

    def get_select_across_queryset(self):
        """ "Select all orders" would read every id of the table: only the ticked rows act."""
        return self.get_queryset().none()
