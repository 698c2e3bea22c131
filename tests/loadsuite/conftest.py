"""Locust monkey-patches the process for gevent when it is imported; anything that imports ssl
first (requests, PyJWT through the chaos module) makes the later patch recurse. Import it
before any test module does."""

import locust  # noqa: F401
