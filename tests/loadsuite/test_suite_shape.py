"""Issue 30's limits on the load suite's shape, held since issue 46 to the services', the stack's
and the floor's code too: no module a reader must scroll through (over 400 lines) and no
function over 60 lines, but those named here with the reason they remain."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "locustfiles"
PACKAGE = "locustfiles.suite"
MEASURED = (SUITE, ROOT / "common", ROOT / "lms_stub", ROOT / "ecommerce", ROOT / "stack", ROOT / "floor")
MODULE_LINES = 400
FUNCTION_LINES = 60
# path relative to the checkout (and function name): why it is still over the limit.
EXCEPTIONS: dict[str, str] = {}


def _python_files(*folders: Path) -> list[Path]:
    return sorted(path for folder in folders or MEASURED for path in folder.rglob("*.py"))


def test_no_module_is_over_400_lines():
    over = {
        str(path.relative_to(ROOT)): path.read_text().count("\n")
        for path in _python_files(*MEASURED)
        if path.read_text().count("\n") > MODULE_LINES
    }
    assert {name: lines for name, lines in over.items() if name not in EXCEPTIONS} == {}


def test_no_function_is_over_60_lines():
    over = {}
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                name = f"{path.relative_to(ROOT)}:{node.name}"
                if length > FUNCTION_LINES and name not in EXCEPTIONS:
                    over[name] = length
    assert over == {}


def test_no_two_suite_modules_differ_by_a_suffix():
    """profile.py, profiles.py and profiler.py side by side were three meanings a letter apart."""
    names = sorted({path.stem for path in _python_files(SUITE) if path.stem != "__init__"})
    near = [(a, b) for a in names for b in names if a != b and b.startswith(a) and len(b) - len(a) <= 3]
    assert near == []


def test_no_import_circle_among_the_suites_modules():
    """Every import of a suite module by another, at the top or inside a function (the one in
    run/hooks.py that keeps a worker light included), goes one way: no module reaches itself."""
    graph: dict[str, set[str]] = {}
    for path in SUITE.rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            internal = isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE)
            if internal:
                imported |= {f"{node.module}.{alias.name}" for alias in node.names} | {node.module}
            elif isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names if alias.name.startswith("locustfiles.suite")}
        graph[module] = imported
    modules = set(graph)
    edges = {m: {i for i in graph[m] if i in modules and i != m} for m in graph}

    def circle_from(start: str) -> list[str] | None:
        stack, seen = [(start, [start])], set()
        while stack:
            node, trail = stack.pop()
            for nxt in edges[node]:
                if nxt == start:
                    return [*trail, start]
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*trail, nxt]))
        return None

    circles = [circle for m in sorted(modules) if (circle := circle_from(m))]
    assert not circles, circles[0]
