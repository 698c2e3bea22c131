"""The payment routes: the processors list belongs to the order API (under /api/v2/), the
notify URL to the processors (under /payment/, as Otto's was)."""

from django.urls import path

from ecommerce.payment import views

api_urls = [
    path("payment/processors/", views.ProcessorListView.as_view(), name="payment-processors"),
]

processor_urls = [
    path("<str:processor>/notify/", views.notify, name="payment-notify"),
]
