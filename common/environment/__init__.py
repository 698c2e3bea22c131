"""The project's environment variables: one table of their names, their defaults for a developer's
machine, their kinds and what they mean, and the readers that apply it.

Every service setting, gunicorn configuration, script and the load suite read a variable of this
table through ``get`` (or a typed reader) and never write its default again; the scripts take
the shell form of the same table (``scripts/lib.sh`` evaluates it).

The table is split by section, a module each (places, database, services, keys, ecommerce,
payment, lms, monitoring, load, judging, chaos, targets, testing, deploy, edx2015); ``table`` puts them
in order. ``model`` says what a variable is, ``readers`` reads one, ``shell`` and ``markdown``
give the table's two other forms.

A default may name other variables, ``{LMS_PORT}``, or the checkout, ``{ROOT}``: it is resolved
with their values as this environment sets them (``LMS_PORT=28000`` moves ``LMS_URL`` too). An
unset variable and one set to "" both take the default; a variable without a default reads as
None. A value that does not parse raises ``BadSetting``, which names the variable.

A few variables have a second default, for deployments (``production``): what a developer wants
to see is not always what a deployment should show (SERVER_TIMING). settings.production reads
them with ``production=True``; everything else, the shell form included, takes the first.

Plain Python, standard library only: the system python3 runs it before the virtualenv exists.

    python3 -m common.environment --shell [NAME ...]   export lines for bash (scripts/lib.sh)
    python3 -m common.environment --markdown           the tables, as docs/configuration.md shows them
    python3 -m common.environment --help-lines         the load runs' variables, for `make help`
"""

from common.environment.markdown import markdown
from common.environment.model import BUILTINS, KINDS, ROOT, BadSetting, Section, UnknownVariable, Variable
from common.environment.readers import (
    default,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_str,
    get,
    given,
    raw,
    variable,
)
from common.environment.shell import shell, shell_line, shell_word
from common.environment.table import SECTIONS, TABLE, VARIABLES

__all__ = [
    "BUILTINS",
    "KINDS",
    "ROOT",
    "SECTIONS",
    "TABLE",
    "VARIABLES",
    "BadSetting",
    "Section",
    "UnknownVariable",
    "Variable",
    "default",
    "env_bool",
    "env_float",
    "env_int",
    "env_list",
    "env_str",
    "get",
    "given",
    "markdown",
    "raw",
    "shell",
    "shell_line",
    "shell_word",
    "variable",
]
