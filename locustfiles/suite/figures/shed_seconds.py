"""Whether the services shed work the machine could still have done: each shed request set
beside how busy the machine's cores were in the second it was sent (the timeline's seconds,
record/recorder.py; the machine read by the keeper where the servers run beside it).

A step's average hides the moments that matter: a step at 160 % of 200 % can hold seconds in
which both cores were full, and those are the seconds a worker's loop runs late and sheds
(common/queueing.py). So the question "was anything refused while the machine had CPU to
spare?" is asked second by second: a shed request counts as refused with CPU to spare when its
second had the machine less busy than ``1 - SPARE`` of its cores. A long run's timeline has
coarser buckets (record/recorder.py doubles them); the figure says which resolution it judged.
"""

from locustfiles.suite.core.summary import ShedByMachine, Timeline

SPARE = 0.10  # "more than 10 % of its CPU to spare" (issue 29)


def shed_by_machine(timeline: Timeline, cores: int | None) -> ShedByMachine | None:
    """summary.json's ``shed_by_machine``; None when the machine was not read second by second
    (its servers read through hosts' agents) or its cores are unknown."""
    points = timeline.get("points") or []
    read = [p for p in points if p.get("machine_cpu_percent") is not None]
    if not cores or not read:
        return None
    limit = 100.0 * cores * (1 - SPARE)  # % of one core, as machine_cpu_percent
    shed_seconds = [p for p in points if p.get("shed")]
    measured = [p for p in shed_seconds if p.get("machine_cpu_percent") is not None]
    spare = [p for p in measured if p["machine_cpu_percent"] < limit]
    first = spare[0] if spare else None
    return {
        "resolution_seconds": timeline.get("bucket_seconds", 1),
        "cores": cores,
        "spare_pct": round(100 * SPARE),
        "busy_limit_cpu_percent": round(limit, 1),
        "shed": sum(p["shed"] for p in shed_seconds),
        "unmeasured": sum(p["shed"] for p in shed_seconds if p.get("machine_cpu_percent") is None),
        "with_cpu_to_spare": sum(p["shed"] for p in spare),
        "seconds_with_cpu_to_spare": len(spare),
        "first_with_cpu_to_spare": (
            {"t": first["t"], "shed": first["shed"], "machine_cpu_percent": first["machine_cpu_percent"]}
            if first
            else None
        ),
        "least_busy_cpu_percent": min((p["machine_cpu_percent"] for p in measured), default=None),
    }
