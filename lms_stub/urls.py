from django.conf import settings
from django.urls import include, path

from lms_stub.commerce.views import baskets, order
from lms_stub.enrollment.views import enrollment
from lms_stub.faults.views import faults
from lms_stub.learners.views import auto_auth
from lms_stub.views import health, schema

urlpatterns = [
    path("api/commerce/v0/baskets/", baskets, name="commerce-baskets"),
    path("api/commerce/v1/orders/<str:number>/", order, name="commerce-order"),
    path("api/enrollment/v1/enrollment", enrollment, name="enrollment"),
    path("health/", health, name="health"),
    path("api/schema/", schema, name="openapi-schema"),
]
# Load-test machinery (settings/lms_stub.py): not routed, it answers 404 like any unknown path.
if settings.LMS_AUTO_AUTH:
    urlpatterns.append(path("auto_auth", auto_auth, name="auto_auth"))
if settings.LMS_FAULT_CONTROL:
    urlpatterns.append(path("api/faults/", faults, name="faults"))
if settings.LMS_PAYMENT_PROCESSOR:
    urlpatterns.append(path("processor/cybersource/", include("lms_stub.processor.urls")))

handler400 = "lms_stub.views.bad_request"
handler403 = "lms_stub.views.forbidden"
handler404 = "lms_stub.views.not_found"
handler500 = "lms_stub.views.server_error"
