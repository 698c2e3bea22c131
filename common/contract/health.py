"""``GET /health/`` of both services: 200 with HEALTHY when the database answers ``SELECT 1``,
503 with an error body of code ``unavailable`` (and ``status: "unavailable"``) when not."""

from common.contract.errors import UNHEALTHY

HEALTHY = {"status": "ok", "database": "ok"}

SCHEMA = {
    "type": "object",
    "required": ["status", "database"],
    "properties": {
        "status": {"type": "string", "enum": ["ok"]},
        "database": {"type": "string", "enum": ["ok"]},
    },
    "additionalProperties": False,
}


def unhealthy(reason: str) -> dict:
    """The 503 body; ``reason`` says what failed (a short, single-line description)."""
    return {
        "error": UNHEALTHY,
        "message": f"The database cannot be reached: {reason}",
        "status": UNHEALTHY,
        "database": "error",
    }
