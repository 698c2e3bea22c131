"""python3 -m common.environment --shell [NAME ...] | --markdown | --help-lines | --refuse-unknown NAME ..."""

import sys

from common.environment.markdown import help_lines, markdown
from common.environment.model import UnknownVariable
from common.environment.names import unknown
from common.environment.shell import shell


def main(argv: list[str]) -> int:
    if argv[:1] == ["--shell"]:
        try:
            sys.stdout.write(shell(argv[1:]))
        except UnknownVariable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    if argv == ["--markdown"]:
        sys.stdout.write(markdown())
        return 0
    if argv == ["--help-lines"]:
        sys.stdout.write(help_lines())
        return 0
    if argv[:1] == ["--refuse-unknown"]:  # the Makefile's check of its command line
        refusals = unknown(argv[1:])
        for line in refusals:
            print(f"error: {line}", file=sys.stderr)
        return 2 if refusals else 0
    print(
        "usage: python3 -m common.environment --shell [NAME ...] | --markdown | --help-lines"
        " | --refuse-unknown NAME ...",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
