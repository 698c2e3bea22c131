from django.apps import AppConfig


class FulfillmentConfig(AppConfig):
    """Enrolling buyers through the LMS, recording the outcome, retrying failures."""

    name = "ecommerce.fulfillment"
    label = "fulfillment"
