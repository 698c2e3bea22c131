"""The hosts' readings agents (common/hostreadings.py) as the sampler asks them: READINGS_HOSTS
parsed, every host asked at once, and the figures of one host between two of its readings."""

import json
import urllib.error
import urllib.request

import gevent

from common.hostreadings import PATH as READINGS_PATH


def parse_hosts(entries: list[str]) -> dict[str, str]:
    """READINGS_HOSTS' entries ("db-1=http://10.213.1.10:18190") as {host: its readings URL}.
    ValueError names the entry that is not one."""
    hosts = {}
    for entry in entries:
        name, sep, url = (part.strip() for part in entry.partition("="))
        if not sep or not name or not url.startswith(("http://", "https://")):
            raise ValueError(f"READINGS_HOSTS takes name=http://address:port entries, not {entry!r}")
        if name in hosts:
            raise ValueError(f"READINGS_HOSTS names {name} twice")
        url = url.rstrip("/")
        hosts[name] = url if url.endswith(READINGS_PATH) else url + READINGS_PATH
    return hosts


def read_host(url: str, timeout: float) -> dict:
    """One agent's reading, or {"error": why} when it did not answer one (a host that is down
    is a reading too: its groups count until its last answer)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 (http(s) only)
            body = json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return {"error": f"HTTP {exc.code}"}
    except (OSError, ValueError) as exc:  # refused, timed out, reset, not JSON
        return {"error": str(exc) or type(exc).__name__}
    if not isinstance(body, dict) or not isinstance(body.get("groups"), dict):
        return {"error": "not a readings answer"}
    return body


def read_hosts(hosts: dict[str, str], timeout: float) -> dict[str, dict]:
    """Every host's reading, asked at once (a host that does not answer costs the timeout once)."""
    asks = {name: gevent.spawn(read_host, url, timeout) for name, url in hosts.items()}
    gevent.joinall(list(asks.values()))
    return {
        name: ask.value if ask.successful() else {"error": repr(ask.exception)} for name, ask in asks.items()
    }


def host_percent(before: dict, after: dict, seconds: float) -> dict[str, float]:
    """CPU % (of one core) of each group between two readings of one host: {group: {pid: s}}."""
    out = {}
    for group, now in after.items():
        then = before.get(group, {})
        used = sum(value - then.get(pid, 0.0) for pid, value in now.items())
        out[group] = round(100 * max(used, 0.0) / seconds, 1)
    return out


def by_host(percents: dict[str, float], hosts: dict[str, str]) -> dict[str, float]:
    """CPU % of processes (Locust's, by name) summed by the host each runs on ("?": not known)."""
    found: dict[str, float] = {}
    for name, percent in percents.items():
        host = hosts.get(name, "?")
        found[host] = round(found.get(host, 0.0) + percent, 1)
    return found
