"""The table: every section's variables, in the order the shell form evaluates them."""

from common.environment import (
    chaos,
    database,
    deploy,
    ecommerce,
    edx2015,
    judging,
    keys,
    lms,
    load,
    monitoring,
    payment,
    places,
    services,
    targets,
    testing,
)
from common.environment.model import BUILTINS, KINDS, PLACEHOLDER, Section, Variable

SECTIONS: tuple[Section, ...] = tuple(
    module.SECTION
    for module in (
        places,
        database,
        services,
        keys,
        ecommerce,
        payment,
        lms,
        monitoring,
        load,
        judging,
        chaos,
        targets,
        testing,
        deploy,
        edx2015,
    )
)
TABLE: tuple[Variable, ...] = tuple(variable for section in SECTIONS for variable in section.variables)
VARIABLES: dict[str, Variable] = {variable.name: variable for variable in TABLE}


def check_table(table: tuple[Variable, ...]) -> None:
    seen: set[str] = set()
    for variable in table:
        assert variable.name not in seen, f"{variable.name} is twice in the table"
        assert variable.kind in KINDS, f"{variable.name}: kind {variable.kind!r} is not one of {KINDS}"
        assert not PLACEHOLDER.search(variable.production or ""), (
            f"{variable.name}: production has a {{NAME}}"
        )
        for ref in variable.references:
            # Earlier entries only: the shell form is evaluated top to bottom.
            assert ref in BUILTINS or ref in seen, f"{variable.name}'s default names {ref}, not above it"
        seen.add(variable.name)


check_table(TABLE)
