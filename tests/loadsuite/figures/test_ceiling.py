"""Issue 29, item 3: capacity beside the machine's ceiling (figures/ceiling.py), the finding that
says how much of the machine the capacity used and what the next step broke on, and the
capacity section's ceiling column."""

import pytest

from locustfiles.suite import profiles
from locustfiles.suite.core import thresholds
from locustfiles.suite.figures import ceiling
from locustfiles.suite.report import terminal
from locustfiles.suite.report.sections import limits
from locustfiles.suite.verdict.findings import outcome
from tests.loadsuite import synthetic


def step(index, target, busy, held=True, refused=None, p95=50, missed=0):
    """A capacity step of 60 s whose arrivals all ran but ``missed``."""
    return {
        "index": index,
        "label": f"{target:g} RPM",
        "target_rpm": target,
        "seconds": 60,
        "arrivals": int(target),
        "missed": missed,
        "machine_cpu_percent": busy,
        "held": held,
        "refusals": refused or {},
        "errors": 0.03 if refused else 0.0,
        "p95": p95,
    }


def test_a_steps_ceiling_is_the_rate_at_which_every_core_would_be_busy():
    # 600 arrivals a minute kept the machine 150 % busy of 200 %: 800 a minute would fill it.
    assert ceiling.step_ceiling(step(0, 600, 150.0), cores=2) == 800.0
    # Missed arrivals did not run: 540 a minute at 135 % is the same cost, the same ceiling.
    assert ceiling.step_ceiling(step(0, 600, 135.0, missed=60), cores=2) == 800.0
    assert ceiling.step_ceiling(step(0, 600, 150.0), cores=4) == 1600.0


@pytest.mark.parametrize(
    ("row", "cores"),
    [
        (step(0, 600, None), 2),  # the machine's CPU was not read
        (step(0, 600, 0.0), 2),
        (step(0, 600, 150.0), None),  # nor its cores
        (step(0, 600, 150.0, missed=600), 2),  # nothing ran
    ],
)
def test_no_ceiling_without_the_machines_cpu_or_an_arrival(row, cores):
    assert ceiling.step_ceiling(row, cores) is None


def test_capacity_is_set_beside_the_ceiling_of_its_step_with_what_the_next_one_broke_on():
    rows = [
        step(0, 300, 60.0),
        step(1, 600, 150.0),
        step(2, 900, 160.0, held=False, refused={"503 overloaded": 12}, p95=210),
    ]
    found = ceiling.capacity_ceiling(rows, 600, cores=2, broke_step=2)
    assert found == {
        "step": "600 RPM",
        "ceiling_rpm": 800.0,
        "ratio": 0.75,
        "machine_cpu_percent": 150.0,
        "cores": 2,
        "next_step": {
            "step": "900 RPM",
            "target_rpm": 900,
            "errors": 0.03,
            "refused": {"503 shed (overloaded)": 12},
            "p95": 210,
            "machine_cpu_percent": 160.0,
            "ceiling_rpm": 1125.0,  # its own: 900 a minute at 160 % of 200 %
            "ratio": 0.53,
        },
    }
    assert ceiling.capacity_ceiling(rows, None, cores=2) is None  # no step held
    assert ceiling.capacity_ceiling([step(0, 300, None)], 300, cores=2) is None  # not read


def capacity_and_above(capacity_busy, broken_target, broken_busy, refused=9, p95=240):
    """Capacity 600 RPM with the machine ``capacity_busy`` % busy of 200 %, and the step above
    it broken on ``refused`` refusals with the machine ``broken_busy`` % busy."""
    rows = [
        step(0, 600, capacity_busy),
        step(1, broken_target, broken_busy, held=False, refused={"503 overloaded": refused}, p95=p95),
    ]
    return ceiling.capacity_ceiling(rows, 600, cores=2, broke_step=1)


@pytest.mark.parametrize(
    ("above", "level", "said"),
    [
        # The step above left the machine a fifth idle: it had CPU to spare; what refused.
        (
            (150.0, 900, 160.0, 12, 210),
            "warning",
            "Capacity 600 RPM is 0.75 of the machine's ceiling at 600 RPM (800 RPM: every core busy at "
            "that step's CPU per arrival; the machine was 150 % busy of 200 %): the machine had CPU to "
            "spare. 900 RPM broke with 503 shed (overloaded) 12, p95 210 ms, the machine 160 % busy.",
        ),
        # Issue 29: the machine's CPU per purchase grows as it fills, so the capacity step's
        # straight line promises more than the cores give. A step that broke with the machine
        # full says what the machine did: 600 a minute at 120 % is a ceiling of 1000; 630 a
        # minute filled 190 %, its own 663.2, and capacity is 0.90 of that.
        (
            (120.0, 630, 190.0, 9, 240),
            "info",
            "Capacity 600 RPM is 0.60 of the machine's ceiling at 600 RPM (1000 RPM: every core busy at "
            "that step's CPU per arrival; the machine was 120 % busy of 200 %), but the machine's CPU per "
            "arrival grew as it filled: 630 RPM broke with 503 shed (overloaded) 9, p95 240 ms, the machine "
            "190 % busy, each arrival costing it 51 % more than at 600 RPM. Capacity is 0.90 of that "
            "step's own ceiling (663.2 RPM).",
        ),
    ],
)
def test_a_capacity_under_its_ceiling_says_whether_the_step_above_had_cpu_to_spare(above, level, said):
    found = outcome.ceiling_finding(capacity_and_above(*above), 600)
    assert (found["level"], found["text"]) == (level, said)


def test_where_the_step_that_broke_filled_the_machine_capacity_is_judged_by_that_steps_ceiling():
    found = capacity_and_above(120.0, 630, 190.0)
    assert (found["ratio"], found["next_step"]["ceiling_rpm"], found["next_step"]["ratio"]) == (
        0.6,
        663.2,
        0.9,
    )
    # Under NEAR of that step's ceiling too: a warning, in the same words.
    found = capacity_and_above(120.0, 700, 190.0)
    assert found["next_step"]["ratio"] == 0.81
    assert outcome.ceiling_finding(found, 600)["level"] == "warning"
    # The step that broke left the machine a tenth idle or more: it had CPU to spare, as before.
    said = outcome.ceiling_finding(capacity_and_above(120.0, 630, 170.0), 600)
    assert said["level"] == "warning" and ": the machine had CPU to spare. 630 RPM broke" in said["text"]
    assert limits.ceiling_words(found) == (
        "The machine's ceiling at 600 RPM: 1000 RPM (120 % busy of 200 %); capacity ÷ ceiling = 0.60. "
        "At 700 RPM, which broke (190 % busy): 736.8 RPM; capacity ÷ that = 0.81."
    )


def test_a_capacity_near_its_ceiling_is_information_and_one_no_step_broke_says_so():
    near = ceiling.capacity_ceiling([step(0, 600, 190.0)], 600, cores=2)
    assert near["ratio"] == 0.95 and outcome.ceiling_finding(near, 600)["level"] == "info"
    capped = ceiling.capacity_ceiling([step(0, 600, 60.0)], 600, cores=2)
    said = outcome.ceiling_finding(capped, 600)
    assert said["level"] == "warning" and said["text"].endswith(
        ": no step broke before the climb ended (RPM's list ends where it ends; a range climbs on "
        "past RPM_MAX only while the next rate is under the ceiling)."
    )


def test_the_capacity_figures_give_each_step_its_ceiling_from_the_hosts_cores():
    rows = [step(0, 600, 150.0), step(1, 900, 190.0)]
    for row in rows:
        row.update(requests=100, failures=0)
    summary = {"steps": rows, "provenance": {"host": {"cores": 2}}}
    capacity = profiles.get("capacity")
    figures = capacity.figures(summary, thresholds.parse("errors<0.01"), {})
    assert [row["ceiling_rpm"] for row in rows] == [800.0, 947.4]
    assert figures["ceiling"]["step"] == "900 RPM" and figures["ceiling"]["ratio"] == 0.95


def test_the_capacity_section_shows_each_steps_ceiling_and_the_ratio():
    rows = [step(0, 600, 150.0), step(1, 900, 160.0, held=False)]
    rows[0]["ceiling_rpm"], rows[1]["ceiling_rpm"] = 800.0, 1125.0
    summary = {"capacity_rpm": 600, "steps": rows, "ceiling": ceiling.capacity_ceiling(rows, 600, 2)}
    blocks = limits.capacity(summary)["blocks"]
    said = [b["text"] for b in blocks if b["kind"] == "text"]
    assert (
        "The machine's ceiling at 600 RPM: 800 RPM (150 % busy of 200 %); capacity ÷ ceiling = 0.75." in said
    )
    (steps,) = [b for b in blocks if b["kind"] == "table"]
    assert steps["headers"][-2:] == ["machine CPU %", "ceiling RPM"]
    assert [row[-1]["text"] for row in steps["rows"]] == ["800", "1125"]


def test_the_terminal_says_capacitys_share_of_the_ceiling():
    p, recorder, *_ = synthetic.recorded("capacity", {"RPM": "600 900", "STEP_SECONDS": "10"})
    summary = synthetic.summary_for(p, recorder, {"profile_sections": ["capacity"]})
    rows = [step(0, 600, 150.0), step(1, 900, 160.0, held=False)]
    summary.update(capacity_rpm=600, ceiling=ceiling.capacity_ceiling(rows, 600, 2))
    said = terminal.lines(summary)
    at = said.index("capacity: 600 RPM held every threshold")
    assert (
        said[at + 1]
        == "  0.75 of the machine's ceiling at that step (800 RPM, the machine 150 % busy of 200 %)"
    )
    # With the step that broke above it: its own ceiling too.
    summary.update(ceiling=ceiling.capacity_ceiling(rows, 600, 2, broke_step=1))
    said = terminal.lines(summary)
    at = said.index("capacity: 600 RPM held every threshold")
    assert said[at + 2] == "  0.53 of the ceiling at 900 RPM, which broke (1125 RPM, the machine 160 % busy)"
