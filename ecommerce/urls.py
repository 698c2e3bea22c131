from django.apps import apps
from django.conf import settings
from django.urls import include, path

from ecommerce.core.openapi import SchemaView
from ecommerce.core.views import health
from ecommerce.dashboard.urls import dashboard_urls, storefront_closed, without_dashboard
from ecommerce.payment.urls import api_urls as payment_api_urls
from ecommerce.payment.urls import processor_urls

urlpatterns = [
    path("health/", health, name="health"),
    path("api/v2/schema/", SchemaView.as_view(), name="openapi-schema"),
    path("api/v2/", include("ecommerce.orders.urls")),
    path("api/v2/", include(payment_api_urls)),
    # Where payment processors post their signed notifications (the processor's interface).
    path("payment/", include(processor_urls)),
    # Oscar's page templates link to Django's language switcher.
    path("i18n/", include("django.conf.urls.i18n")),
    # Oscar's dashboard (staff), the pages that would scan a growing table replaced (same names).
    path("dashboard/", dashboard_urls()),
    # Oscar: its storefront pages; off (settings.production's default) they answer 404.
    *([] if settings.ECOMMERCE_STOREFRONT else storefront_closed()),
    path("", include(without_dashboard(apps.get_app_config("oscar").urls[0]))),
]

handler400 = "ecommerce.core.errors.handler400"
handler403 = "ecommerce.core.errors.handler403"
handler404 = "ecommerce.core.errors.handler404"
handler500 = "ecommerce.core.errors.handler500"
