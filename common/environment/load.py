"""The load runs' sizes, their switches and the learners' mix (docs/load-runs.md).

A size's default belongs to its profile (ramp's USERS are not smoke's): the catalogue of
profiles (locustfiles/suite/core/catalogue.py) holds it and ``make help`` prints it; the table
holds the name, its kind and its meaning. The make targets pass these to the suite
(the Makefile exports this section's SIZES from make/load-runs.mk, which
locustfiles/suite/core/help.py --write makes).
"""

from common.environment.model import Section, Variable

PER_PROFILE = "per profile (`make help`)"


def _size(name: str, kind: str, description: str, shown: str = PER_PROFILE) -> Variable:
    return Variable(name, None, kind, description, shown=shown)


SECTION = Section(
    "Load runs",
    (
        Variable(
            "LOCUSTFILE", "locustfiles/buy_seat.py", "str", "the locustfile `make run` serves", shell=True
        ),
        Variable(
            "COURSES",
            "{CATALOG_COURSES}",
            "int",
            "Locust: buy among the first N courses only (1 = one hot seat)",
            shown="all (`$CATALOG_COURSES`)",
        ),
        _size("USERS", "str", 'ramp, smoke, edx2015: the user counts, one step each (`"1 2 3"`)'),
        _size("STEP_SECONDS", "int", "ramp, smoke, capacity: seconds a step lasts"),
        _size(
            "RPM", "str", "rpm, soak, chaos, profile, overload: purchases a minute; capacity: a list of steps"
        ),
        _size("DURATION", "int", "rpm, overload, edx2015, profile: seconds of the measured step"),
        _size("HOURS", "float", "soak: hours of load"),
        _size("BUCKET_SECONDS", "int", "soak: seconds a bucket of the trend lasts"),
        _size("RPM_START", "float", "capacity: the first step's purchases a minute"),
        _size("RPM_STEP", "float", "capacity: added at every step"),
        _size("RPM_MAX", "float", "capacity: the last step's, at most"),
        _size(
            "KNEE_PCT",
            "float",
            "capacity: after a step breaks, probes halve the interval from the rate that held until it "
            "is narrower than this % of it",
        ),
        _size(
            "CAPACITY_RPM",
            "float",
            "overload: what a capacity run held (the warm-up's rate; RPM is 1.5 × it)",
        ),
        _size(
            "WARMUP_SECONDS",
            "int",
            "load before the steps at the first rate, recorded and audited, reported apart; 0: none",
        ),
        _size("SAMPLE_HZ", "int", "make profile: py-spy's samples a second (1 to 1000)"),
        _size(
            "PRELOAD", "int", "a load target first fills both databases as N purchases would", shown="unset"
        ),
        _size("WORKERS", "int", "Locust worker processes beside the master; 0: one process", shown="`0`"),
        _size(
            "HOST_PROFILE",
            "str",
            "`m3.medium` or `m3.xlarge`: ecommerce sized as on that instance; 2 × its vCPUs + 1 workers, "
            "pinned "
            "to that many cores where the machine has them",
            shown="this machine",
        ),
        _size(
            "UI",
            "str",
            "set, and not `0` or `false`: the Locust web UI instead of headless (press Start; the "
            "profile's shape runs)",
            shown="unset",
        ),
        _size(
            "REQUEST_LOG",
            "str",
            "set: every request also goes to `requests-<pid>.csv` in the run folder (start time, "
            "milliseconds, name, ok, status, JSON body or not)",
            shown="unset",
        ),
        Variable("WAIT_MIN", "3", "float", "the learners' think time, closed model: at least (seconds)"),
        Variable("WAIT_MAX", "5", "float", "the learners' think time, closed model: at most (seconds)"),
        Variable("BUY_WEIGHT", "50", "int", "the learners' mix: free purchases through the LMS"),
        Variable("PAY_WEIGHT", "1", "int", "the learners' mix: paid purchases through the payment processor"),
        Variable("READ_WEIGHT", "5", "int", "the learners' mix: reads of the learner's last order"),
        _size("PROFILE", "str", "set by the suite: the profile a Locust process runs", shown="`manual`"),
        _size(
            "SUITE_CONFIG",
            "str",
            "set by the suite: the configuration under test, as JSON, for the report",
            shown="set by the suite",
        ),
    ),
)

# The variables the make targets of the load runs pass on (the Makefile exports them).
SIZES = (
    "USERS STEP_SECONDS RPM DURATION HOURS BUCKET_SECONDS RPM_START RPM_STEP RPM_MAX COURSES WORKERS "
    "THRESHOLDS HOST_PROFILE UI WAIT_MIN WAIT_MAX BUY_WEIGHT PAY_WEIGHT READ_WEIGHT NOISE_PCT NOISE_MS "
    "FAULTS PHASE_SECONDS FAULT_SECONDS PRELOAD WARMUP_SECONDS SAMPLE_HZ CAPACITY_RPM KNEE_PCT"
).split()
