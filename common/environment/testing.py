"""What `make test` (scripts/test.sh) and its browser tests take (docs/testing.md)."""

from common.environment.model import Section, Variable

SECTION = Section(
    "Tests",
    (
        Variable(
            "SUITES",
            None,
            "str",
            "the suites `scripts/test.sh` runs: `lint ansible unit lms_stub integration schema load "
            "browser`, or the folder names `ecommerce` and `loadsuite`; an unknown name is refused",
            shown="all",
        ),
        Variable(
            "BROWSER_ARTIFACTS",
            None,
            "str",
            "where the browser tests keep their screenshots",
            shown="`var/artifacts/browser`",
        ),
        Variable(
            "CHROMIUM", None, "str", "the browser binary the browser tests drive", shown="`/usr/bin/chromium`"
        ),
    ),
)
