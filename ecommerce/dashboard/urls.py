"""The dashboard's URLs: these views first, then all of Oscar's dashboard, in one "dashboard"
namespace that ecommerce/urls.py mounts ahead of Oscar's own.

Django reverses a namespace through the first include that declares it, so this one carries
every Oscar dashboard name too; each view here keeps the URL name and the permission check of
the Oscar view it replaces (the Oscar app's own decorator).
"""

from django.apps import apps
from django.urls import include, path

from ecommerce.dashboard.index import IndexView
from ecommerce.dashboard.orders import OrderListView
from ecommerce.dashboard.statistics import OrderStatsView
from ecommerce.dashboard.users import UserListView


def protected(app_label: str, route: str, view, name: str):
    """``path(route, view, name=name)`` behind the permissions Oscar's ``app_label`` gives
    ``name``."""
    return apps.get_app_config(app_label).post_process_urls([path(route, view.as_view(), name=name)])[0]


def dashboard_urls():
    """The argument of ``include()`` for "dashboard/"."""
    dashboard = apps.get_app_config("dashboard")
    replaced = [
        protected("dashboard", "", IndexView, "index"),
        protected("orders_dashboard", "orders/", OrderListView, "order-list"),
        protected("orders_dashboard", "orders/statistics/", OrderStatsView, "order-stats"),
        protected("users_dashboard", "users/", UserListView, "users-index"),
    ]
    return include((replaced + dashboard.get_urls(), dashboard.label), namespace=dashboard.namespace)


def without_dashboard(patterns: list) -> list:
    """Oscar's URL patterns less its own "dashboard" include, which ``dashboard_urls`` replaces
    (two includes of one namespace would make reversing depend on their order)."""
    return [pattern for pattern in patterns if getattr(pattern, "namespace", None) != "dashboard"]
