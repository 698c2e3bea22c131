"""python -m common.calibration: one calibration of this machine, printed as one JSON line."""

import sys

from common.calibration.workload import main

sys.exit(main())
