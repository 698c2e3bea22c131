"""The dashboard's URLs: these views first, then all of Oscar's dashboard, in one "dashboard"
namespace that ecommerce/urls.py mounts ahead of Oscar's own.

Django reverses a namespace through the first include that declares it, so this one carries
every Oscar dashboard name too; each view here keeps the URL name and the permission check of
the Oscar view it replaces (the Oscar app's own decorator).
"""

import re

from django.apps import apps
from django.db import transaction
from django.http import Http404
from django.urls import URLResolver, include, path, re_path
from django.views.generic import RedirectView

from ecommerce.dashboard.index import IndexView
from ecommerce.dashboard.keyset import refuses_malformed_page
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
    patterns = page_numbers_checked(replaced + dashboard.get_urls())
    return include((patterns, dashboard.label), namespace=dashboard.namespace)


def page_numbers_checked(patterns: list) -> list:
    """Every dashboard view behind ``refuses_malformed_page``, as Oscar's own
    ``post_process_urls`` decorates its patterns' callbacks (each pattern once)."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            page_numbers_checked(pattern.url_patterns)
        elif not getattr(pattern.callback, "page_number_checked", False):
            pattern.callback = refuses_malformed_page(pattern.callback)
            pattern.callback.page_number_checked = True
    return patterns


def without_dashboard(patterns: list) -> list:
    """Oscar's URL patterns less its own "dashboard" include, which ``dashboard_urls`` replaces
    (two includes of one namespace would make reversing depend on their order)."""
    return [pattern for pattern in patterns if getattr(pattern, "namespace", None) != "dashboard"]


def storefront_sections() -> list[str]:
    """The first path segment of every pattern Oscar's URLconf mounts at the root, the dashboard
    aside: its storefront sections (catalogue, basket, checkout, accounts, ...) and the account
    routes it mounts outside them (password-reset/...). Read from Oscar, so that a section a
    later Oscar adds is closed too."""
    oscar = without_dashboard(apps.get_app_config("oscar").urls[0])
    return sorted({str(pattern.pattern).split("/")[0] for pattern in oscar} - {""})


@transaction.non_atomic_requests  # a 404 needs no database
def storefront_not_found(request, *args, **kwargs):
    raise Http404  # answered by ecommerce.core.errors.handler404, in the JSON error shape


def storefront_closed() -> list:
    """Patterns mounted ahead of Oscar's storefront when ECOMMERCE_STOREFRONT is off: its pages
    (registration, password reset, basket, checkout, catalogue, the customer's account, product
    alerts: everything that makes, recovers or mails an account) answer 404. Oscar's own
    patterns stay behind them, so its URL names still reverse in the dashboard's templates. The
    customer login, where Oscar's dashboard sends a logged-out user and where Oscar's form also
    registers one, leads to the dashboard's own login instead."""
    return [
        path(
            "accounts/login/",
            transaction.non_atomic_requests(
                RedirectView.as_view(pattern_name="dashboard:login", query_string=True)
            ),
            name="storefront-login",
        ),
        path("", storefront_not_found),
        re_path(r"^(?:{})/".format("|".join(map(re.escape, storefront_sections()))), storefront_not_found),
    ]
