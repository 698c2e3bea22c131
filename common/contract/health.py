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


def unhealthy() -> dict:
    """The 503 body. It says down and nothing more: /health/ answers anyone, so the database's
    own error (host, port, user) goes to the service's log, not to the caller."""
    return {
        "error": UNHEALTHY,
        "message": "The database cannot be reached.",
        "status": UNHEALTHY,
        "database": "error",
    }
