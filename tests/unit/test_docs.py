"""The README and the guides under docs/ name only what exists: every `make` target is the
Makefile's, every variable is in the table of common/environment, every link reaches a file and a
heading. The decision records and measurements (docs/decisions/, docs/measurements/) are left
out: they record what was decided and measured, in the words of their day."""

import functools
import re
import subprocess
from pathlib import Path

import pytest

from common import environment

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Words in capitals the docs name that are not variables, and why.
NOT_VARIABLES = {
    **dict.fromkeys(("GET", "PUT"), "HTTP methods"),
    **dict.fromkeys(("ACCEPT", "DECLINE"), "the payment processor's decisions"),
    **dict.fromkeys(("TOKEN", "SKU", "BASKET"), "shell variables of api.md's example"),
    **dict.fromkeys(("PROCESS", "SELECT", "ALL"), "MariaDB privileges"),
    **dict.fromkeys(("ON", "OSCR", "INFO"), "a variable's value in the configuration table"),
    "NAME": "the placeholder `$NAME` in the configuration guide",
    "UP": "a server's state at the load balancer",
    "RMP": "the misspelling load-runs.md shows make refusing",
}
# `NAME`, `NAME=value`, `$NAME` and NAME=value: the ways the docs name a variable.
VARIABLE = re.compile(
    r"`\$?([A-Z][A-Z0-9_]*)(?:=[^`]*)?`|\b([A-Z][A-Z0-9_]*[A-Z0-9])=|\$\{?([A-Z][A-Z0-9_]+)"
)
TARGET = re.compile(r"`make ([a-z][a-z0-9-]*)|^make ([a-z][a-z0-9-]*)", re.M)
LINK = re.compile(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)")


def named(pattern: re.Pattern, text: str) -> set[str]:
    return {next(group for group in match.groups() if group) for match in pattern.finditer(text)}


@functools.cache
def makefile_targets() -> set[str]:
    """The Makefile's rules as written, and the profiles' targets, which make reads from the
    catalogue (its PROFILES)."""
    rules = re.findall(r"^([a-z0-9][a-z0-9 -]*):(?!=)", (ROOT / "Makefile").read_text(), re.M)
    profiles = subprocess.run(
        ["make", "-s", "--no-print-directory", "--eval=say: ; @echo $(PROFILES)", "say"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    return {target for rule in rules for target in rule.split()} | set(profiles)


def slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    prose = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.M | re.S)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", prose, re.M)}


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_make_target_the_docs_name_exists(path):
    targets = named(TARGET, path.read_text())
    assert targets - makefile_targets() == set()


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_variable_the_docs_name_is_in_the_table(path):
    names = named(VARIABLE, path.read_text()) - set(NOT_VARIABLES)
    assert names - set(environment.VARIABLES) == set()


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_link_reaches_a_file_and_a_heading(path):
    broken = []
    for target, anchor in LINK.findall(path.read_text()):
        if target.startswith(("http://", "https://")):
            continue
        linked = (path.parent / target).resolve() if target else path
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}#{anchor}")
    assert not broken


def test_the_readme_is_a_landing_page_that_links_every_guide():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    for guide in DOCS[1:]:
        assert f"(docs/{guide.name})" in readme, guide.name


def test_the_docs_see_a_target_or_variable_that_is_not_there():
    """The checks above can fail: a made-up target and variable are caught."""
    text = "Run `make no-such-target` with `NO_SUCH_VARIABLE=1`."
    assert named(TARGET, text) - makefile_targets() == {"no-such-target"}
    assert named(VARIABLE, text) - set(environment.VARIABLES) == {"NO_SUCH_VARIABLE"}


def readme_paragraphs() -> list[list[str]]:
    """The README's paragraphs of prose and its list items, each as its lines (tables, headings,
    images and code blocks left out)."""
    prose = re.sub(r"^```.*?^```", "", (ROOT / "README.md").read_text(), flags=re.M | re.S)
    blocks = [block.splitlines() for block in re.split(r"\n\s*\n|\n(?=\* )", prose) if block.strip()]
    return [lines for lines in blocks if not lines[0].startswith(("|", "#", "!"))]


def test_the_readme_is_written_in_short_paragraphs():
    # One paragraph of 13 lines of chained clauses once told how to start a profile from the form.
    long = [lines[0] for lines in readme_paragraphs() if len(lines) > 7]
    assert long == []


def test_the_readme_says_how_to_move_each_port_and_what_rpm_counts():
    readme = (ROOT / "README.md").read_text()
    for name in ("LMS_PORT", "ECOMMERCE_PORT", "LOCUST_PORT", "MYSQL_PORT"):
        assert f"| `{name}` | {environment.VARIABLES[name].default} |" in readme, name
    assert "`make run LOCUST_PORT=8090`" in readme
    assert "RPM is purchases a minute, not HTTP requests." in readme


def test_the_readme_never_says_the_staff_password_is_printed():
    readme = (ROOT / "README.md").read_text()
    assert "`var/staff-password`" in readme
    assert "password printed" not in readme
