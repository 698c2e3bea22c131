#!/usr/bin/env python
"""Django's command-line utility for both services.

ecommerce uses settings.local by default; the LMS stand-in runs with
DJANGO_SETTINGS_MODULE=settings.lms_stub.
"""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings.local")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
