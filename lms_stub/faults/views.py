import time

from django.conf import settings
from django.db import transaction
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from lms_stub.faults import injection
from lms_stub.faults.models import FaultSettings
from lms_stub.http import BadRequest, allow_methods, api_view, json_body, require_api_key

FIELDS = ("latency_ms", "jitter_ms", "error_rate", "outage_seconds", "outage_starts_in_seconds")


@csrf_exempt
@allow_methods("GET", "PUT", "DELETE")
@api_view
@require_api_key
def faults(request):
    """GET, PUT or DELETE /api/faults/ (X-Edx-Api-Key) — read, change or reset the faults of
    the enrollment API. PUT takes any of: latency_ms, jitter_ms (added at random, 0..jitter),
    error_rate (0..1), outage_seconds and outage_starts_in_seconds (an outage window from now;
    outage_seconds 0 ends an outage). DELETE returns to the LMS_FAULT_* settings."""
    if request.method == "PUT":
        changes = _parse(json_body(request))
        with transaction.atomic():
            row, _ = FaultSettings.objects.select_for_update().get_or_create(
                pk=1, defaults=injection.from_settings().as_json()
            )
            for name, value in changes.items():
                setattr(row, name, value)
            row.save()
    elif request.method == "DELETE":
        FaultSettings.objects.filter(pk=1).delete()
    injection.forget()
    return JsonResponse(
        {
            **injection.load().as_json(),
            "now": time.time(),
            "applies_within_seconds": settings.LMS_FAULT_REFRESH_SECONDS,
        }
    )


def _parse(data: dict) -> dict:
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise BadRequest(f"Unknown fields: {', '.join(unknown)}. Known: {', '.join(FIELDS)}.")
    changes = {}
    for name in ("latency_ms", "jitter_ms"):
        if name in data:
            value = data[name]
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 600_000:
                raise BadRequest(f"'{name}' must be a whole number of milliseconds, 0 to 600000.")
            changes[name] = value
    if "error_rate" in data:
        rate = data["error_rate"]
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise BadRequest("'error_rate' must be a number from 0 to 1.")
        changes["error_rate"] = float(rate)
    if "outage_seconds" in data or "outage_starts_in_seconds" in data:
        length = data.get("outage_seconds", 0)
        delay = data.get("outage_starts_in_seconds", 0)
        for name, value in (("outage_seconds", length), ("outage_starts_in_seconds", delay)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 86_400:
                raise BadRequest(f"'{name}' must be a number of seconds, 0 to 86400.")
        start = time.time() + delay
        changes["outage_start"], changes["outage_end"] = start, start + length
    return changes
