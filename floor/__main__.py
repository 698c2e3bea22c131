import sys

from floor.cli import main

sys.exit(main())
