"""`python -m locustfiles.suite.run PROFILE`: what the Makefile's load targets run."""

import sys

from locustfiles.suite.run.cli import main

sys.exit(main(sys.argv[1:]))
