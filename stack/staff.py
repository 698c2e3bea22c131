"""The staff login's password and the key that signs staff tokens: the environment's if it sets
them, else generated once into VAR_DIR (mode 0600) and read from there ever after.

Only `scripts/stack.sh staff-password` prints the password; the stack's output names where it is.
Only ecommerce is given the key (stack/services.py) and the index audit reads it through
`scripts/stack.sh staff-jwt-secret`: the load suite's processes never hold a key that reaches staff.
"""

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from common.environment import get, given


@dataclass(frozen=True)
class Secret:
    variable: str
    filename: str
    random_bytes: int

    def path(self) -> Path:
        return Path(get("VAR_DIR")) / self.filename

    def source(self) -> str:
        """Where it is, never the value: the variable's name, or the file."""
        return self.variable if given(self.variable) else str(self.path())

    def value(self) -> str:
        set_here = given(self.variable)
        if set_here:
            return set_here
        path = self.path()
        if not path.is_file() or path.stat().st_size == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w") as file:
                file.write(secrets.token_urlsafe(self.random_bytes))
        return path.read_text()


STAFF_PASSWORD = Secret("ECOMMERCE_STAFF_PASSWORD", "staff-password", 15)
STAFF_JWT_SECRET = Secret("STAFF_JWT_SECRET_KEY", "staff-jwt-secret", 48)
