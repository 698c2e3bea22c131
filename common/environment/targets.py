"""What other make targets take on their command line (the Makefile reads them itself)."""

from common.environment.model import Section, Variable

SECTION = Section(
    "Arguments of make targets",
    (
        Variable("A", None, "str", "`make compare`: the first run folder", shown="required"),
        Variable(
            "B", None, "str", "`make compare`: the second run folder, compared with A", shown="required"
        ),
        Variable(
            "ORDERS",
            None,
            "int",
            "`make preload`: the purchases both databases should hold; `make bench`: the orders measured; "
            "`make bench-lms`: the purchases measured; `make floor` without RUN: the real purchases measured",
            shown="4000000 (preload), 300 (bench, bench-lms), 10 (either with CALLGRIND=1), 100 (floor)",
        ),
        Variable(
            "PAID", None, "bool", "`make bench PAID=1`: a paid seat (`bench_order --paid`)", shown="unset"
        ),
        Variable(
            "CALLGRIND",
            None,
            "bool",
            "`make bench CALLGRIND=1`: instructions per order under valgrind's callgrind, two runs that "
            "must agree within 1 % (`bench_order --callgrind`; the bench process only, not MariaDB's side); "
            "`make bench-lms CALLGRIND=1`: instructions per purchase and per call of lms_stub's three calls",
            shown="unset",
        ),
        Variable(
            "RUN",
            None,
            "str",
            "`make floor`: a load run's folder: its CPU per purchase is the real figure, "
            "floor.json goes there",
            shown="unset: purchases made one after another",
        ),
        Variable(
            "FLOOR_REQUESTS",
            None,
            "int",
            "`make floor`: requests to each hop's bare handler, and replays of each service's statements",
            shown="1000",
        ),
        Variable("FUZZ_EXAMPLES", None, "int", "`make fuzz`: examples per operation", shown="500"),
        Variable(
            "FUZZ_SEED", None, "int", "`make fuzz`: the seed (a failure's, to repeat it)", shown="random"
        ),
        Variable(
            "EDX_LOAD_TESTS",
            None,
            "str",
            "`make edx2015-original`: a checkout of edx/load-tests at 860f6fa",
            shown="required",
        ),
    ),
)
