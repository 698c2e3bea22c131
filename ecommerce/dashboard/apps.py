from django.apps import AppConfig


class DashboardConfig(AppConfig):
    """Installed only for its templates; its views are routed ahead of Oscar's in
    ecommerce/urls.py under Oscar's own URL names."""

    name = "ecommerce.dashboard"
    label = "ecommerce_dashboard"
