"""The SQL statements of a run, from two readings of performance_schema's digests (the
readings sampler's ``digests()``): the requests' costliest by total time, those that used no
index, and the background job's apart."""

import re

# The statements of the purchase-counter rollup loop (ecommerce/counters/rollup.py), a
# background job: its turn lock, and every statement on the purchase events but the request
# path's INSERT, and its upsert into Oscar's product records.
BACKGROUND = re.compile(
    r"GET_LOCK|RELEASE_LOCK|^(?!INSERT).*`counters_purchaseevent`"
    r"|INSERT INTO `analytics_productrecord`.*ON DUPLICATE KEY",
    re.IGNORECASE | re.DOTALL,
)


def is_background(statement: str) -> bool:
    return bool(BACKGROUND.search(statement or ""))


def digest_report(before: dict, after: dict, top: int = 10) -> dict:
    """The statements of the run: the requests' costliest by total time and any that used no
    index, and the background job's (the counter rollup) apart."""
    deltas = []
    for key, now in after.items():
        then = before.get(
            key, {"count": 0, "time_ms": 0, "no_index": 0, "no_good_index": 0, "rows_examined": 0}
        )
        count = now["count"] - then["count"]
        if count <= 0:
            continue
        deltas.append(
            {
                "schema": now["schema"],
                "statement": now["text"] or "",
                "count": count,
                "total_ms": round(now["time_ms"] - then["time_ms"], 1),
                "mean_ms": round((now["time_ms"] - then["time_ms"]) / count, 3),
                "no_index": now["no_index"] - then["no_index"],
                "no_good_index": now["no_good_index"] - then["no_good_index"],
                "rows_examined_per_call": round((now["rows_examined"] - then["rows_examined"]) / count, 1),
            }
        )
    deltas.sort(key=lambda d: d["total_ms"], reverse=True)
    requests = [d for d in deltas if not is_background(d["statement"])]
    return {
        "top": requests[:top],
        "no_index": [d for d in requests if d["no_index"] or d["no_good_index"]],
        "background": [d for d in deltas if is_background(d["statement"])][:top],
    }
