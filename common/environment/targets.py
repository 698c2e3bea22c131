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
            "`make preload`: the purchases both databases should hold; `make bench`: the orders measured",
            shown="4000000 (preload), 300 (bench)",
        ),
        Variable(
            "PAID", None, "bool", "`make bench PAID=1`: a paid seat (`bench_order --paid`)", shown="unset"
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
