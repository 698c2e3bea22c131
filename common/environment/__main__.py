"""python3 -m common.environment --shell [NAME ...] | --markdown | --help-lines"""

import sys

from common.environment.markdown import help_lines, markdown
from common.environment.model import UnknownVariable
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
    print(
        "usage: python3 -m common.environment --shell [NAME ...] | --markdown | --help-lines", file=sys.stderr
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
