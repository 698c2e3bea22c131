from django.apps import AppConfig


class EnrollmentConfig(AppConfig):
    """The enrollment API ecommerce calls to fulfil a seat."""

    name = "lms_stub.enrollment"
    label = "enrollment"
