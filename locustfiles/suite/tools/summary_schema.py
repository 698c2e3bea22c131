"""``python -m locustfiles.suite.tools.summary_schema``: writes docs/summary.schema.json from
the summary's types (core/summary.py); with ``--check`` it writes nothing and exits 1 when the
shipped file is not what the types give (scripts/lint.sh runs it; tests/loadsuite/tools/
test_summary_schema.py checks the same).
"""

import argparse
import json
import sys
from pathlib import Path

from locustfiles.suite.core import json_schema, summary
from locustfiles.suite.stack.commands import ROOT

SHIPPED = ROOT / "docs" / "summary.schema.json"


def generated() -> str:
    """The schema's text as the types give it now."""
    schema = json_schema.schema(
        summary.Summary,
        summary.CLOSED,
        title=f"summary.json of a load run (schema_version {summary.SCHEMA_VERSION})",
        description="Written by locustfiles/suite/core/summary.py's types; keys are only ever added.",
    )
    return json.dumps(schema, indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split(";")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the shipped schema is stale")
    parser.add_argument("--out", type=Path, default=SHIPPED)
    arguments = parser.parse_args(argv)
    text = generated()
    if arguments.check:
        stale = not arguments.out.exists() or arguments.out.read_text() != text
        print(f"{arguments.out}: {'stale: run python -m ' + __spec__.name if stale else 'up to date'}")
        return int(stale)
    arguments.out.write_text(text)
    print(arguments.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
