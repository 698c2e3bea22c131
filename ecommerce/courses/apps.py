from django.apps import AppConfig


class CoursesConfig(AppConfig):
    """Course seats as Oscar products: the seeded catalogue and the seat lookups."""

    name = "ecommerce.courses"
    label = "courses"
