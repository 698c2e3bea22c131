"""The sizing check's arithmetic (sizing.yml): the busy processes the roles run on the hosts
that share one kernel, against what one host of those cores with the same roles would run.

The roles size each host from its own vCPUs: one gevent worker per vCPU for each gunicorn
service (2 x vCPUs + 1 for a sync worker class), one Locust worker per vCPU, one process for the
database, the balancer, the Locust master and ecommerce's rollup loop. A host sized for more
vCPUs than it has (m3.xlarge's values on a 2-vCPU host), or several hosts on one machine (the
cluster's network namespaces share its cores), run more processes than that rule intends, and
what is measured there is not what the sizing says. The rule is stated here as the roles'
defaults state it (a role's default is what a host runs where the inventory sets nothing).
"""


def _gunicorn(service: str):
    """A gunicorn service's rule: one gevent worker per vCPU, 2 x vCPUs + 1 sync workers."""
    return lambda v, host: v if (host.get(f"{service}_worker_class") or "gevent") == "gevent" else 2 * v + 1


# What each group runs: (the configured count's variable or None for one process, the rule's
# count for v vCPUs on that host).
ROLES = {
    "ecommerce": ("ecommerce_workers", _gunicorn("ecommerce")),
    "lms_stub": ("lms_stub_workers", _gunicorn("lms_stub")),
    "locust_workers": ("locust_workers_per_host", lambda v, host: v),
    "database": (None, lambda v, host: 1),
    "database_replica": (None, lambda v, host: 1),
    "load_balancer": (None, lambda v, host: 1),
    "locust_master": (None, lambda v, host: 1),
}
NAMES = {"ecommerce": "ecommerce workers", "lms_stub": "lms_stub workers", "locust_workers": "Locust workers"}


def sizing_warnings(hosts: list[dict]) -> list[str]:
    """One sentence per kernel whose hosts run more busy processes than the roles intend for its
    cores. Each host: name, groups, vcpus, kernel (its boot id) and the configured counts."""
    kernels: dict[str, list[dict]] = {}
    for host in hosts:
        kernels.setdefault(host["kernel"], []).append(host)
    return [said for shared in kernels.values() if (said := _kernel(shared))]


def _kernel(hosts: list[dict]) -> str | None:
    vcpus = int(hosts[0]["vcpus"])
    running: dict[str, int] = {}
    for host in hosts:
        for group in host["groups"]:
            if group in ROLES:
                variable, rule = ROLES[group]
                running[group] = running.get(group, 0) + _count(host, variable, rule(vcpus, host))
    # One host of these cores with these roles (each group's worker class as its hosts have it).
    classes = {group: h for h in hosts for group in h["groups"]}
    intended = {group: ROLES[group][1](vcpus, classes[group]) for group in running}
    over = [g for g in ROLES if g in running and running[g] > intended[g]]
    if not over:
        return None
    names = ", ".join(sorted(h["name"] for h in hosts))
    where = f"{names} share one kernel of {vcpus} vCPUs" if len(hosts) > 1 else f"{names} has {vcpus} vCPUs"
    detail = ", ".join(f"{NAMES.get(g, g)} {running[g]} for {intended[g]}" for g in over)
    return (
        f"{where}: {sum(running.values())} busy processes where one host of "
        f"{vcpus} vCPUs with these roles would run {sum(intended.values())} ({detail}). What is "
        "measured here is not what the sizing says: size the hosts for the cores they have "
        "(ansible/README.md, Sizing)."
    )


def _count(host: dict, variable: str | None, rule: int) -> int:
    """A role's processes on a host: one, or its variable's value (unset: the role's default,
    which is the rule)."""
    if variable is None:
        return 1
    value = host.get(variable)
    return rule if value in (None, "", "None") else int(value)


class FilterModule:
    def filters(self):
        return {"sizing_warnings": sizing_warnings}
