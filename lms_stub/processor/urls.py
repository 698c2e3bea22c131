from django.urls import path

from lms_stub.processor import views

urlpatterns = [
    path("pay/", views.pay, name="processor-pay"),
    path("pay/confirm/", views.confirm, name="processor-confirm"),
]
