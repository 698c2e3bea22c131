"""Fulfilment modules: one plain class per kind of product, each turning an order line into a
line status. Only enrollment in a course seat exists today."""

import logging

from django.conf import settings

from common import http_client, timing
from common.contract import paths
from common.contract.statuses import LINE
from ecommerce.courses.seats import enrollment_target

logger = logging.getLogger(__name__)


class EnrollmentFulfillmentModule:
    """Enrols the buyer of a seat through the LMS enrollment API.

    The API is idempotent on (user, course), so a retry after an unclear failure (a timeout)
    cannot enrol twice.
    """

    def fulfill_line(self, order, line, timeout: float) -> str:
        course_id, mode = enrollment_target(line.product) if line.product_id else (None, None)
        if not course_id or not mode:
            logger.error("order %s line %s: product has no course or mode", order.number, line.pk)
            return LINE.FULFILLMENT_CONFIGURATION_ERROR
        body = {
            "user": order.user.username,
            "is_active": True,
            "mode": mode,
            "course_details": {"course_id": course_id},
        }
        try:
            with timing.outbound("lms"):
                # A redirect is not followed (it would turn the POST into a GET, which an LMS
                # may answer 200 without enrolling anyone). The API is idempotent, so a call
                # on a kept-alive connection the LMS had just closed is sent again.
                response = http_client.post(
                    settings.LMS_URL + paths.ENROLLMENT,
                    json=body,
                    headers={"X-Edx-Api-Key": settings.EDX_API_KEY},
                    timeout=timeout,
                    idempotent=True,
                )
        except http_client.Timeout:
            logger.warning("order %s: enrollment timed out", order.number)
            return LINE.FULFILLMENT_TIMEOUT_ERROR
        except http_client.RequestError as exc:
            logger.warning("order %s: enrollment failed: %s", order.number, exc)
            return LINE.FULFILLMENT_NETWORK_ERROR
        if 200 <= response.status_code < 300:
            return LINE.COMPLETE
        logger.warning(
            "order %s: enrollment answered %s: %s", order.number, response.status_code, response.text[:200]
        )
        if response.status_code >= 500:
            return LINE.FULFILLMENT_SERVER_ERROR
        return LINE.FULFILLMENT_CONFIGURATION_ERROR  # 3xx and 4xx: it can never work as set up


def module_for(line):
    """The module that fulfils ``line``. Every product sold here is a seat."""
    return EnrollmentFulfillmentModule()
