"""A developer's machine: the defaults of base.py, everything on 127.0.0.1."""

from settings.base import *  # noqa: F403
