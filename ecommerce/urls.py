from django.apps import apps
from django.urls import include, path

from ecommerce.core.openapi import SchemaView
from ecommerce.core.views import health

urlpatterns = [
    path("health/", health, name="health"),
    path("api/v2/schema/", SchemaView.as_view(), name="openapi-schema"),
    path("api/v2/", include("ecommerce.orders.urls")),
    # Oscar's page templates link to Django's language switcher.
    path("i18n/", include("django.conf.urls.i18n")),
    # Oscar: the dashboard (staff) and its storefront pages.
    path("", include(apps.get_app_config("oscar").urls[0])),
]

handler400 = "ecommerce.core.errors.handler400"
handler403 = "ecommerce.core.errors.handler403"
handler404 = "ecommerce.core.errors.handler404"
handler500 = "ecommerce.core.errors.handler500"
