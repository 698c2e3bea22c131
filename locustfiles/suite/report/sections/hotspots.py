"""Where the CPU goes (make profile): flame graphs and top frames per process group."""

from typing import Any

from locustfiles.suite.core.blocks import cell, fmt, links, section, table, text
from locustfiles.suite.core.summary import Profiling, Summary
from locustfiles.suite.core.text import plural

REPORTED_FRAMES = 10  # top frames per table in "Where the CPU goes"


PROFILE_READING = (
    "How to read it: py-spy sampled with --gil, so a sample is a thread holding Python's GIL, "
    "running Python code; time in system calls and C code that let go of the GIL (a socket's "
    "send and recv, libev waiting for I/O) is not in the samples. A process the kernel preempted "
    "while it held the GIL is still sampled where it stopped: where the busy processes outnumber "
    "the cores, a group's sampled seconds (samples ÷ rate) exceed the CPU seconds it used over the "
    "same window, and its shares are of time holding the GIL, which is CPU time only as far as "
    'the process had a core. "Event loop" is gevent\'s hub dispatching between greenlets, shown '
    "as its own frame. Self: the frame on top of the stack; inclusive: anywhere on it (itself and "
    "what it called); % of all the group's samples."
)


PREEMPTED = 1.25  # sampled seconds above this many times the CPU seconds: say the group waited


def _frame_rows(rows: list[dict]) -> list[list]:
    return [
        [
            i,
            cell("event loop (gevent hub)" if row["event_loop"] else row["function"], "code"),
            cell(f"{row['file']}:{row['line']}" if row["line"] else row["file"], "code"),
            row["samples"],
            row["percent"],
        ]
        for i, row in enumerate(rows[:REPORTED_FRAMES], start=1)
    ]


def _group_blocks(group: str, figures: dict, rate) -> list:
    if figures.get("error"):
        return [text(f"{group}: no profile ({figures['error']}).")]
    samples = figures["samples"]
    processes = len(figures.get("processes") or {}) or 1
    event_loop = round(100 * figures["event_loop_samples"] / samples, 1) if samples else 0.0
    line = (
        f"{group}: {samples:,} samples from {plural(processes, 'process', 'processes')} "
        f"({fmt(figures['sampled_seconds'])} s sampled at {fmt(rate)} Hz, against "
        f"{fmt(figures['cpu_seconds'])} s of CPU used); event loop {fmt(event_loop)} % of the samples."
    )
    if figures["cpu_seconds"] and figures["sampled_seconds"] > PREEMPTED * figures["cpu_seconds"]:
        line += (
            f" It held the GIL {fmt(round(figures['sampled_seconds'] - figures['cpu_seconds'], 1))} s "
            "longer than it ran: preempted, ready but without a core."
        )
    if figures.get("behind_seconds"):
        line += (
            f" py-spy fell up to {fmt(figures['behind_seconds'])} s behind in sampling: read the "
            "shares as rough."
        )
    if figures.get("sampling_errors"):
        line += f" {figures['sampling_errors']} samples could not be read."

    def top(key: str, caption: str) -> dict | None:
        if not figures[key]:
            return None
        headers = ["#", "frame", "file:line", "samples", "%"]
        return table(headers, _frame_rows(figures[key]), caption=f"{group}, {caption}:")

    return [
        text(line),
        links(
            (figures["svg"], f"{group} flame graph ({figures['svg']})"),
            (figures["stacks"], f"collapsed stacks ({figures['stacks']})"),
        ),
        top("top_self", "top frames by self samples"),
        top("top_inclusive", "top frames by inclusive samples"),
        top("top_own", "our own code by inclusive samples"),
    ]


def profiling(summary: Summary) -> dict:
    """make profile's flame graphs and top frames, per process group."""
    found: Profiling | dict[str, Any] = summary.get("profiling") or {}
    if not found.get("taken"):
        return section(
            "profiling",
            "Where the CPU goes",
            text(f"No profile was taken: {found.get('reason') or 'the run recorded none'}."),
            *[
                text(f"{group}: {figures['error']}.")
                for group, figures in (found.get("groups") or {}).items()
                if figures.get("error")
            ],
        )
    intro = (
        f"{found.get('tool') or 'py-spy'} sampled the Python stacks of each process group at "
        f"{fmt(found['rate_hz'])} Hz for {fmt(found['seconds'])} s, the measured step (after the "
        "warm-up). Each flame graph is an SVG beside this report: hover a frame for its samples, "
        "click to zoom."
    )
    blocks = [text(intro), text(PROFILE_READING)]
    for group, figures in found["groups"].items():
        blocks += _group_blocks(group, figures, found["rate_hz"])
    return section("profiling", "Where the CPU goes", *blocks)
