"""What every answer to bad input must satisfy, for fuzzed and hand-written requests alike."""

import json


def error_shape_problem(status: int, content_type: str, body: bytes) -> str | None:
    """Why an error answer is not in the one JSON error shape, or None when it is."""
    if status < 400:
        return None
    if not content_type.startswith("application/json"):
        return f"{status} answered as {content_type or 'no content type'}: {body[:200]!r}"
    try:
        data = json.loads(body)
    except ValueError:
        return f"{status} with a body that is not JSON: {body[:200]!r}"
    if not isinstance(data, dict):
        return f"{status} with a JSON body that is not an object: {data!r:.200}"
    if not isinstance(data.get("error"), str) or not data["error"]:
        return f'{status} without an "error" code: {data!r:.300}'
    if not isinstance(data.get("message"), str) or not data["message"]:
        return f'{status} without a "message": {data!r:.300}'
    fields = data.get("fields")
    if fields is not None and not (
        isinstance(fields, dict)
        and all(isinstance(v, list) and all(isinstance(m, str) for m in v) for v in fields.values())
    ):
        return f'{status} with "fields" not a map of field to messages: {fields!r:.300}'
    return None


def assert_rejected_cleanly(response, databases, before: dict) -> None:
    """A requests.Response to bad input: no server error, an error in the one shape, and not
    one row written or changed in either database."""
    assert response.status_code < 500, f"server error {response.status_code}: {response.text[:500]}"
    assert 400 <= response.status_code < 500, (
        f"bad input accepted ({response.status_code}): {response.text[:300]}"
    )
    problem = error_shape_problem(
        response.status_code, response.headers.get("Content-Type", ""), response.content
    )
    assert problem is None, problem
    assert_nothing_written(databases, before, f"{response.status_code} {response.text[:200]}")


def assert_nothing_written(databases, before: dict, answer: str, allowed: set[str] = frozenset()) -> None:
    """No table changed but the ``allowed`` ones ("database.table": a refused payment
    notification is recorded)."""
    changed = [
        name for name in databases.changed_tables(before, databases.fingerprint()) if name not in allowed
    ]
    assert not changed, f"a rejected request ({answer}) wrote to {', '.join(changed)}"
