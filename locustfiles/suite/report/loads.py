"""What load each of two runs put on the system, how the two differ, and which of their steps
carried the same load: what make compare says before any figure, so that no change is read
across two different loads.

A run's load is read from its summary: its profile, its plan (open or closed model), its
steps' rows (each step's target RPM, or its users, and its fault) and the learners' mix, from
the settings it resolved (summary.json from schema 7) or else from what older summaries
recorded (the provenance's weights and think time, the CPU accounting's mix). A step of A is
matched with the step of B that carried the same load: the same target RPM (open model) or
the same number of users (closed), under the same fault; never by position or by label.
"""

from collections import defaultdict, deque

from locustfiles.suite.core.summary import StepRow, Summary
from locustfiles.suite.core.text import label, plural

MIX = ("BUY_WEIGHT", "PAY_WEIGHT", "READ_WEIGHT")
MIX_WORDS = "free purchases : paid ones : order reads"
MOST_LOADS = 8  # distinct step loads named in a sentence before "…"
MODELS = {
    True: "open model (purchases arrive at each step's target rate, whatever the answers take)",
    False: "closed model (a number of users, each waiting for its answer, then thinking)",
}


def step_load(row: StepRow) -> tuple:
    """What a step asked of the system: ("rpm", rate) in the open model, ("users", count) in
    the closed one, then its fault; a row with neither (a summary older than both) by its
    label, so it matches only a step of the same name."""
    fault = row.get("fault")
    if (rate := row.get("target_rpm")) is not None:
        return ("rpm", float(rate), fault)
    if (users := row.get("users")) is not None:
        return ("users", int(users), fault)
    return ("label", label(row), fault)


def load_words(load: tuple) -> str:
    """A step's load in words: "250 RPM", "2 users", "300 RPM under network_down"."""
    kind, value, fault = load
    shown = f"{value:g} RPM" if kind == "rpm" else plural(value, "user") if kind == "users" else value
    return f"{shown} under {fault}" if fault else shown


def step_name(row: StepRow) -> str:
    """The step's name as its own run gave it ("2 users", "bucket 3"), else its load in words:
    never another run's name for it."""
    return row.get("label") or load_words(step_load(row))


def match(rows_a: list[StepRow], rows_b: list[StepRow]) -> list[tuple[StepRow | None, StepRow | None]]:
    """The steps of A and B in pairs of the same load, in A's order; a step of either run with
    no step of the same load in the other is paired with None, B's placed before the first
    pair that comes after it in B. Repeated loads (a soak's buckets) pair in order."""
    free: dict[tuple, deque[int]] = defaultdict(deque)
    for index, row in enumerate(rows_b):
        free[step_load(row)].append(index)
    paired = [(row, free[step_load(row)].popleft() if free[step_load(row)] else None) for row in rows_a]
    used = {j for _, j in paired if j is not None}
    alone = deque(j for j in range(len(rows_b)) if j not in used)
    out: list[tuple[StepRow | None, StepRow | None]] = []
    for row, j in paired:
        while j is not None and alone and alone[0] < j:
            out.append((None, rows_b[alone.popleft()]))
        out.append((row, None if j is None else rows_b[j]))
    out.extend((None, rows_b[j]) for j in alone)
    return out


def open_model(summary: Summary) -> bool | None:
    """Whether the run's plan was an open model (None: neither recorded nor seen in its steps)."""
    plan = summary.get("plan")
    if plan and plan.get("open_model") is not None:
        return bool(plan["open_model"])
    kinds = {step_load(row)[0] for row in summary.get("steps") or []}
    return True if kinds == {"rpm"} else False if kinds == {"users"} else None


def mix(summary: Summary) -> str | None:
    """The learners' mix, "50 : 1 : 5" (free purchases : paid ones : order reads), as the run
    resolved it, else as an older summary recorded it; edX's 2015 client brings its own."""
    if summary.get("client") or summary.get("profile") == "edx2015":
        return "edX's 2015 client's own tasks"
    resolved = _resolved(summary)
    if all(name in resolved for name in MIX):
        return " : ".join(f"{resolved[name]:g}" for name in MIX)
    weights = ((summary.get("provenance") or {}).get("load") or {}).get("weights") or {}
    if all(key in weights for key in ("buy", "pay", "read")):
        return " : ".join(f"{weights[key]:g}" for key in ("buy", "pay", "read"))
    return None


def think_time(summary: Summary) -> str | None:
    """A closed model's think time between a user's tasks, "3–5 s" (None: not recorded)."""
    resolved = _resolved(summary)
    think = ((summary.get("provenance") or {}).get("load") or {}).get("think_time") or {}
    low = resolved.get("WAIT_MIN", think.get("min_seconds"))
    high = resolved.get("WAIT_MAX", think.get("max_seconds"))
    return None if low is None or high is None else f"{low:g}–{high:g} s"


def _resolved(summary: Summary) -> dict:
    """The settings the run resolved (summary.json from schema 7; {}: an older summary)."""
    settings = summary.get("settings")
    return (settings.get("resolved") if settings else None) or {}


def steps_words(rows: list[StepRow]) -> str:
    """A run's steps by their loads, in order, a repeated load counted once: "1 user, 2 users",
    "1038 RPM (64 steps)"."""
    counts: dict[tuple, int] = {}
    for row in rows:
        counts[step_load(row)] = counts.get(step_load(row), 0) + 1
    named = [load_words(load) + (f" ({n} steps)" if n > 1 else "") for load, n in counts.items()]
    more = f", … ({len(named) - MOST_LOADS} loads more)" if len(named) > MOST_LOADS else ""
    return ", ".join(named[:MOST_LOADS]) + more if named else "no step"


def differences(a: Summary, b: Summary) -> list[str]:
    """How the two runs' loads differ, one sentence each ([]: the same load, as far as both
    summaries recorded it)."""
    found = []
    if a.get("profile") != b.get("profile"):
        found.append(f"Profile: A is {a.get('profile')}, B is {b.get('profile')}.")
    model_a, model_b = open_model(a), open_model(b)
    if model_a is not None and model_b is not None and model_a != model_b:
        found.append(f"Load model: A {MODELS[model_a]}; B {MODELS[model_b]}.")
    loads_a = [step_load(row) for row in a.get("steps") or []]
    loads_b = [step_load(row) for row in b.get("steps") or []]
    if sorted(loads_a, key=repr) != sorted(loads_b, key=repr):
        found.append(f"Steps: A {steps_words(a.get('steps') or [])}; B {steps_words(b.get('steps') or [])}.")
    mix_a, mix_b = mix(a), mix(b)
    if None not in (mix_a, mix_b) and mix_a != mix_b:
        found.append(f"Learners' mix ({MIX_WORDS}): A {mix_a}; B {mix_b}.")
    if model_a is False and model_b is False:
        think_a, think_b = think_time(a), think_time(b)
        if None not in (think_a, think_b) and think_a != think_b:
            found.append(f"Think time between a user's tasks: A {think_a}; B {think_b}.")
    return found


def matched_words(pairs: list[tuple[StepRow | None, StepRow | None]]) -> str:
    """How many steps found their load in the other run, in a sentence."""
    both = sum(1 for row_a, row_b in pairs if row_a and row_b)
    only_a = sum(1 for row_a, row_b in pairs if row_a and not row_b)
    only_b = sum(1 for row_a, row_b in pairs if row_b and not row_a)
    text = f"Steps are matched by their load (target RPM, or users), not by position or name: {both} matched"
    if only_a or only_b:
        text += f"; {only_a} of A's and {only_b} of B's have no step of the same load in the other run"
    return text + "."


def pair_name(row_a: StepRow | None, row_b: StepRow | None) -> str:
    """A pair's name in the comparison: the step's own name in each run that has it."""
    if row_a is None or row_b is None:
        alone = row_a or row_b
        assert alone is not None, "match() pairs a step with None, never None with None"
        return f"{step_name(alone)} ({'A' if row_b is None else 'B'} only)"
    name_a, name_b = step_name(row_a), step_name(row_b)
    return name_a if name_a == name_b else f"A: {name_a}, B: {name_b}"
