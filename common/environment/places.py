"""Where the checkout keeps its runtime files and its Python."""

from common.environment.model import Section, Variable

SECTION = Section(
    "Where things are",
    (
        Variable(
            "VAR_DIR", "{ROOT}/var", "str", "runtime files: databases, logs, pid files, load runs", shell=True
        ),
        Variable("VENV", "{ROOT}/.venv", "str", "the virtualenv scripts/bootstrap.sh makes", shell=True),
        Variable("PYTHON", "{VENV}/bin/python", "str", "the Python the scripts run", shell=True),
        Variable(
            "MYSQL_DIR",
            "{VAR_DIR}/mysql",
            "str",
            "the private MariaDB's datadir, socket and pid file",
            shell=True,
        ),
        Variable(
            "STATIC_DIR",
            "{VAR_DIR}/static",
            "str",
            "collected static files (stacks of a checkout share them)",
            shell=True,
        ),
    ),
)
