from django.apps import AppConfig


class CommerceConfig(AppConfig):
    """The learner-facing commerce endpoint: buying a seat through ecommerce."""

    name = "lms_stub.commerce"
    label = "commerce"
