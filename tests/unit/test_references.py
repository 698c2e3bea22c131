"""Every repository path the docs and the code's comments cite exists in the checkout.

A path named in prose is not checked by any import or link: when its file moves, the prose goes
on pointing at nothing (issue 46 found five such, and many more in the old decisions notebook).
The scanner reads the Markdown files whole, and of the code only what is prose: comments and
docstrings in Python, comments in shell, Makefile, YAML, Jinja2, TOML, INI and requirements
files. A token is a repository path when it contains "/" and either starts with one of the
repository's top-level folders (then it must exist from the root) or ends in a file extension
(then it must exist from the citing file's folder or one above it, or be the tail of a path in
the checkout, as `run/keeper.py` is of `locustfiles/suite/run/keeper.py`). Paths of other
projects and of run outputs are in UPSTREAM, each with its reason.
"""

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Folders that are not the repository's own files: tools' caches, the virtualenv, run outputs.
NOT_SCANNED = {".git", ".venv", "var", "__pycache__", ".ruff_cache", ".mypy_cache", ".pytest_cache"}
EXTENSIONS = (
    "py md sh yml yaml j2 toml json txt ini cfg html js css csv png svg sql conf service xml "
    "pem key crt tar.gz"
).split()
COMMENTED = {".sh", ".yml", ".yaml", ".j2", ".toml", ".ini", ".cfg", ".txt", ".conf"}
COMMENTED_NAMES = {"Makefile", "run"}  # .ci/run is a shell script without an extension

# Paths that are not this repository's, by their start, and why they are cited.
UPSTREAM = {
    "locust/": "Locust's own package (web.py, runners.py, stats.py, html.py …), read for its seams",
    "examples/": "Locust's examples (custom_shape/step_load.py, extend_web_ui.py)",
    "src/oscar/": "django-oscar's source, whose apps and templates ours fork or follow",
    "oscar/": "django-oscar's package (oscar/apps/…, its templates)",
    "django/": "Django's package (django/db, its backends)",
    "rest_framework/": "Django REST framework's package",
    "gevent/": "gevent's package (gevent/hub.py)",
    "gunicorn/": "gunicorn's package (its workers, its parser)",
    "pymysql/": "PyMySQL's package",
    "MySQLdb/": "mysqlclient's package",
    "newrelic/": "the New Relic agent's package",
    "helpers/": "edX's 2015 load client, whose files our re-creation follows",
    "ecommerce/extensions/": "edX's ecommerce (Otto): its fulfilment and payment modules",
    "ecommerce/settings/": "edX's ecommerce (Otto): its settings layout, quoted as a model",
    "ecommerce/courses/utils.py": "edX's ecommerce (Otto), not ours",
    "loadtests/": "edX's edx-load-tests repository",
    "lms/": "edx-platform's LMS",
    "common/djangoapps/": "edx-platform's shared Django apps",
    "openedx/": "edx-platform's openedx package",
    "defaults/main.yml": "an Ansible role's layout, named in general (every role has one)",
    "tasks/main.yml": "an Ansible role's layout, named in general",
    "molecule/default/": "an Ansible role's molecule layout, named in general (geerlingguy's roles)",
    "etc/": "a host's system configuration (etc/haproxy, etc/supervisor …), not a checkout path",
    "usr/": "a host's system files",
    "var/": "run outputs and runtime files under VAR_DIR, made by a run, not kept in git",
    "node_modules/": "Locust's web UI build",
}
# File names cited without a folder that are nobody's file in the checkout, and why. Any other
# bare name must be some file's name here.
NOT_OURS = {
    **dict.fromkeys(
        ("summary.json", "report.html", "report.md", "compare.html", "compare.md", "compare.json"),
        "what a run or `make compare` writes into var/runs/",
    ),
    **dict.fromkeys(("matrix.json", "matrix.md"), "what scripts/config_matrix.py writes"),
    "floor.json": "what `make floor` writes into a run folder or var/floor/",
    **dict.fromkeys(("basket.json", "pay.html"), "files the user writes in a documented shell example"),
    "haproxy.cfg": "the configuration rendered on a host from roles/haproxy/templates/haproxy.cfg.j2",
    "PLAYBOOK.yml": "a placeholder in the cluster's usage (scripts/cluster.sh, stack/cluster/commands.py)",
    "runners.py": "Locust's own module",
    **dict.fromkeys(("bench-ab.sh", "s8-table.py"), "the lead's notes outside the repository"),
}
BARE = re.compile(r"(?<![\w./-])([\w-]+\.(?:py|md|sh|yml|yaml|j2|toml|ini|cfg|html|json))(?![\w/])")

# Tokens that look like paths here and are not the checkout's, and why.
NOT_PATHS = {
    "ecommerce/ecommerce-1": "HAProxy's backend/server name, as its runtime API spells it",
    "locustfiles/PROFILE.py": "a placeholder in a usage line: one locustfile per profile",
    "group_vars/all/vault.yml": "the secrets file an operator writes from vault.yml.example, never committed",
}
# Paths cited as they were, or as what must not exist, where the citing text says so.
FORMER = {
    "docs/decisions/README.md": {"docs/decisions.md"},  # the notebook the records were split from
    "docs/decisions/0024-a-profile-is-a-class-a-run-is.md": {"locustfiles/suite/profiles.py"},
    "docs/decisions/0032-shared-code-lives-in-common.md": {"environment.py"},
    "docs/decisions/0017-openapi-documents-from-hand.md": {"lms_stub/openapi.py"},  # now a package
    "docs/decisions/0033-repeated-lines-left-on-purpose.md": {"common/environment.py", "lms_stub/openapi.py"},
    "docs/decisions/0034-one-table-of-environment.md": {"common/environment.py"},
    "docs/decisions/0049-the-full-loops-cpu-where-it.md": {"DESIGN.md"},  # the design map, not in git
    "docs/decisions/0069-one-report-model-blocks-in.md": {"sections.py"},
    "docs/decisions/0048-make-profile-py-spy-with-gil.md": {"locustfiles/profile.py"},
    "locustfiles/suite/core/catalogue.py": {"locustfiles/profile.py"},
    "tests/loadsuite/test_suite_shape.py": {"profile.py", "profiler.py", "profiles.py"},
}

# Tokens that are not paths at all although they hold a "/" and look like one.
PLACEHOLDER = re.compile(r"[<>{}*$…]|\.\.\.|NNNN|YYYY")

PATH = re.compile(r"(?<![\w./~@:-])((?:\.\./)*[A-Za-z_][\w.-]*(?:/[\w.<>{}*$…-]+)+/?)")
MARKDOWN_LINK = re.compile(r"\]\(([^)#\s]+)")


def scanned_files() -> list[Path]:
    """The checkout's files as git sees them (tracked, or new and not ignored): not what a
    tool writes beside the tests while they run (ansible-lint's .ansible/, caches), which a
    walk of the tree read and lost between listing and reading (a fresh root's make test)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    paths = [ROOT / name for name in sorted(set(listed)) if name]
    return [path for path in paths if not NOT_SCANNED & set(path.relative_to(ROOT).parts) and path.is_file()]


FILES = scanned_files()
TOP_LEVEL = {p.relative_to(ROOT).parts[0] for p in FILES if len(p.relative_to(ROOT).parts) > 1}
_PARTS = [p.relative_to(ROOT).parts for p in FILES]
# Every tail of a file's path, and every run of folders, so a path cited relative to its package
# (run/keeper.py, suite/core/) is found where it is.
TAILS = {"/".join(parts[i:]) for parts in _PARTS for i in range(1, len(parts))}
DIR_TAILS = {
    "/".join(parts[i:j]) for parts in _PARTS for i in range(len(parts)) for j in range(i + 1, len(parts))
}


def python_prose(text: str) -> list[tuple[int, str]]:
    """Comments and docstrings of a Python file, with their first line."""
    prose = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    prose.append((body[0].lineno, body[0].value.value))
    return prose


def commented_prose(text: str) -> list[tuple[int, str]]:
    """What follows a # that starts a line or a word, and Jinja2's {# … #}."""
    prose = []
    for number, line in enumerate(text.splitlines(), 1):
        prose += [(number, m.group(1)) for m in re.finditer(r"(?:^|\s)#(.*)$", line)]
        prose += [(number, m.group(1)) for m in re.finditer(r"\{#(.*?)(?:#\}|$)", line)]
    return prose


def prose_of(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(errors="replace")
    if path.suffix == ".md":
        return list(enumerate(text.splitlines(), 1))
    if path.suffix == ".py":
        return python_prose(text)
    if path.suffix in COMMENTED or path.name in COMMENTED_NAMES:
        return commented_prose(text)
    return []


def is_upstream(token: str) -> bool:
    return any(token.startswith(start) for start in UPSTREAM)


def exists(token: str, cited_in: Path) -> bool:
    """Whether a cited path names something in the checkout (see the module's docstring)."""
    token = token.rstrip("/")
    module_and_name = re.fullmatch(r"(.+/\w+)\.([A-Za-z_]\w*)", token)
    if module_and_name and module_and_name.group(2) not in EXTENSIONS:
        token = module_and_name.group(1) + ".py"  # tests/support/servers.AS_OWNER
    if token.split("/")[0] in TOP_LEVEL or token.startswith("../"):
        bases = [ROOT] if not token.startswith("../") else [cited_in.parent]
        return any((base / token).exists() for base in bases)
    folder = cited_in.parent
    while True:
        if (folder / token).exists():
            return True
        if folder == ROOT:
            break
        folder = folder.parent
    return token in TAILS or token in DIR_TAILS


def cited_paths(line: str) -> set[str]:
    tokens = set(MARKDOWN_LINK.findall(line)) | set(BARE.findall(line))
    for match in PATH.finditer(line):
        tokens.add(match.group(1).rstrip(".,;:'\"`)"))
    return tokens


def is_repository_path(token: str) -> bool:
    if "://" in token or PLACEHOLDER.search(token):
        return False
    if "/" not in token:
        return token not in NOT_OURS
    if token.split("/")[0] in TOP_LEVEL or token.startswith("../"):
        return True
    name = token.rstrip("/").rsplit("/", 1)[-1]
    return any(name.endswith("." + extension) for extension in EXTENSIONS)


def stale_references(files: list[Path]) -> list[str]:
    """`file:line: path` for every cited repository path that names nothing."""
    stale = []
    for path in files:
        for number, prose in prose_of(path):
            for line_offset, line in enumerate(prose.splitlines()):
                for token in sorted(cited_paths(line)):
                    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                    if token in NOT_PATHS or token in FORMER.get(str(where), ()):
                        continue
                    if is_repository_path(token) and not is_upstream(token) and not exists(token, path):
                        stale.append(f"{where}:{number + line_offset}: {token}")
    return stale


def test_every_path_the_docs_and_comments_cite_exists():
    assert stale_references(FILES) == []


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("guide.md", "The pool lives in `common/nope.py`.\n"),
        ("module.py", '"""The pool (common/nope.py)."""\n\nX = 1  # see common/nope.py\n'),
        ("script.sh", "#!/bin/sh\n# reads common/nope.py\necho ok\n"),
        ("config.yml", "key: value  # common/nope.py says why\n"),
    ],
)
def test_a_planted_stale_path_is_reported(tmp_path, name, text):
    planted = tmp_path / name
    planted.write_text(text)
    reported = stale_references([planted])
    assert reported and all(line.endswith(": common/nope.py") for line in reported)


def test_a_path_that_exists_and_an_upstream_one_are_not_reported(tmp_path):
    planted = tmp_path / "guide.md"
    planted.write_text("`common/http_client.py`, Locust's `locust/web.py`, `var/runs/<timestamp>/`\n")
    assert stale_references([planted]) == []


def test_a_path_in_code_that_is_not_prose_is_not_read(tmp_path):
    planted = tmp_path / "module.py"
    planted.write_text('PATH = "common/nope.py"\n')
    assert stale_references([planted]) == []
