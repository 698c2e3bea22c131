import time

from django.conf import settings
from django.db import transaction
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from lms_stub.faults import injection
from lms_stub.faults.models import FaultSettings
from lms_stub.http import BadRequest, allow_methods, api_view, json_body, require_fault_api_key

# What PUT accepts: field -> (JSON type, lowest, highest). The OpenAPI document reads it too.
LIMITS = {
    "latency_ms": ("integer", 0, 600_000),
    "jitter_ms": ("integer", 0, 600_000),
    "error_rate": ("number", 0, 1),
    "outage_seconds": ("number", 0, 86_400),
    "outage_starts_in_seconds": ("number", 0, 86_400),
}
FIELDS = tuple(LIMITS)


@csrf_exempt
@allow_methods("GET", "PUT", "DELETE")
@api_view
@require_fault_api_key
def faults(request):
    """GET, PUT or DELETE /api/faults/ (X-Fault-Api-Key) — read, change or reset the faults of
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
    for name, value in data.items():
        kind, low, high = LIMITS[name]
        types = int if kind == "integer" else (int, float)
        if isinstance(value, bool) or not isinstance(value, types) or not low <= value <= high:
            what = "a whole number" if kind == "integer" else "a number"
            raise BadRequest(f"'{name}' must be {what} from {low} to {high}.")
    changes = {name: data[name] for name in ("latency_ms", "jitter_ms") if name in data}
    if "error_rate" in data:
        changes["error_rate"] = float(data["error_rate"])
    if "outage_seconds" in data or "outage_starts_in_seconds" in data:
        start = time.time() + data.get("outage_starts_in_seconds", 0)
        changes["outage_start"], changes["outage_end"] = start, start + data.get("outage_seconds", 0)
    return changes
