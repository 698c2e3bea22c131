"""Reading Server-Timing headers (the W3C Server Timing format). Plain Python: the load suite reads
the services' answers with it too."""

import re

# One metric: a name, then ;-separated parameters whose values may be quoted strings.
_METRIC = re.compile(
    r"""\s*(?P<name>[!#$%&'*+\-.^_`|~0-9A-Za-z]+)
        (?P<params>(?:\s*;\s*[^;,=\s]+\s*(?:=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))?)*)
        \s*(?:,|$)""",
    re.VERBOSE,
)
_DUR = re.compile(r';\s*dur\s*=\s*"?([0-9]+(?:\.[0-9]+)?)"?', re.IGNORECASE)


def parse(value: str) -> dict[str, float]:
    """{name: milliseconds} of a Server-Timing header's metrics that carry a ``dur``."""
    found: dict[str, float] = {}
    position = 0
    while position < len(value):
        match = _METRIC.match(value, position)
        if match is None or match.end() == position:
            break  # malformed from here on: keep what was read
        duration = _DUR.search(match.group("params"))
        if duration and match.group("name") not in found:
            found[match.group("name")] = float(duration.group(1))
        position = match.end()
    return found
