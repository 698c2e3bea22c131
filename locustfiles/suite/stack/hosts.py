"""Instance profiles: size the services as on the EC2 instances of the 2015 runs.

HOST_PROFILE=m3.medium (1 vCPU) or m3.xlarge (4 vCPUs) sets ecommerce's gunicorn workers to
2 x vCPUs + 1 (so "one m3.medium, three workers") and its pool size, and pins ecommerce to that
many cores where this machine has them (taskset); where it has fewer, the run is not pinned
and the report says so. lms_stub and MariaDB keep their own settings: in 2015 they ran on other
machines.
"""

import os
from typing import TypedDict


class HostProfile(TypedDict):
    vcpus: int
    memory_gb: float


PROFILES: dict[str, HostProfile] = {
    "m3.medium": {"vcpus": 1, "memory_gb": 3.75},
    "m3.xlarge": {"vcpus": 4, "memory_gb": 15},
}


def environment(name: str | None, cores: int | None = None) -> tuple[dict[str, str], dict]:
    """(variables for the services, description for the report) of a host profile."""
    if not name:
        return {}, {"name": None}
    if name not in PROFILES:
        raise ValueError(f"HOST_PROFILE must be one of {', '.join(PROFILES)}, not {name!r}")
    vcpus = PROFILES[name]["vcpus"]
    cores = cores or os.cpu_count() or 1
    workers = 2 * vcpus + 1
    env = {"ECOMMERCE_WORKERS": str(workers), "DB_POOL_SIZE": "10"}
    pinned = cores >= vcpus
    if pinned:
        env["ECOMMERCE_CPUS"] = "0" if vcpus == 1 else f"0-{vcpus - 1}"
    description = {
        "name": name,
        **PROFILES[name],
        "ecommerce_workers": workers,
        "pinned_cpus": env.get("ECOMMERCE_CPUS"),
        "note": None if pinned else f"not pinned: this machine has {cores} cores, the profile {vcpus}",
    }
    return env, description
