"""The import graph stays a set of layers (issue 28, item 5): no two areas of the app import
each other, directly or around a longer cycle; the app imports none of the tests, the
benchmark suite or what they share; no module imports a test module; the benchmark suite
and testkit never import the tests.

An area is a package directly under app/ (app/auth, app/core, ...) or a module there
(app/main.py, app/cli.py). Every import statement counts, function-level ones and those
under `if TYPE_CHECKING:` included, read from the source with `ast`: a late import
still ties the two areas together, it only hides it. Before the fix the areas formed three
cycles: app.auth with app.core; app.docs, app.main, app.routes, app.query and app.export;
and nine areas, app.background, app.downlinks, app.history, app.live, app.mqtt, app.ops,
app.telemetry, app.webhooks and app.world.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE_THE_APP = ("tests", "testkit", "benchmarks", "demo", "clients")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """The modules a file imports (for `from x import y`, both x and x.y: y may be a
    module), relative imports resolved."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def area(module: str) -> str | None:
    """The app area a module belongs to (None outside the app)."""
    parts = module.split(".")
    if parts[0] != "app" or len(parts) < 2:
        return None
    top = ROOT / "app" / parts[1]
    return f"app.{parts[1]}" if top.is_dir() or top.with_suffix(".py").is_file() else None


def area_edges() -> dict[str, dict[str, set[str]]]:
    """area -> imported area -> the files that import it."""
    edges: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted((ROOT / "app").rglob("*.py")):
        source = area(module_name(path))
        if source is None:  # app/__init__.py
            continue
        for target in filter(None, map(area, imported(path))):
            if target != source:
                edges[source][target].add(path.relative_to(ROOT).as_posix())
    return edges


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_cycles_finds_a_cycle_and_nothing_else() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"b"}}) == []


def test_no_two_areas_of_the_app_import_each_other() -> None:
    edges = area_edges()
    graph = {source: set(targets) for source, targets in edges.items()}
    explained = [
        f"{source} -> {target} ({', '.join(sorted(edges[source][target]))})"
        for component in cycles(graph)
        for source in component
        for target in sorted(graph[source] & set(component))
    ]
    assert explained == [], "areas in a cycle:\n" + "\n".join(explained)


def test_the_app_imports_nothing_from_outside_it() -> None:
    """The service's wheel holds app/ only: the tests, the benchmark suite, testkit, the
    demo and the clients are never imported by it, not even late."""
    reached = [
        f"{path.relative_to(ROOT).as_posix()}: {module}"
        for path in sorted((ROOT / "app").rglob("*.py"))
        for module in sorted(imported(path))
        if module.split(".")[0] in OUTSIDE_THE_APP
    ]
    assert reached == []


def test_test_modules_are_imported_by_nobody_and_tests_by_no_tool() -> None:
    """A `test_*.py` holds tests only (what several share lives in tests/support/), and
    the benchmark suite and testkit do not depend on the tests (what both need is in
    testkit/, which does not depend on the suite either)."""
    # What each folder may not import beside test modules: its top-level packages.
    forbidden = {"testkit": {"tests", "benchmarks"}, "benchmarks": {"tests"}}
    wrong = [
        f"{path.relative_to(ROOT).as_posix()}: {module}"
        for folder in ("app", "tests", "testkit", "benchmarks", "demo")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for module in sorted(imported(path))
        if module.split(".")[-1].startswith("test_")
        or module.split(".")[0] in forbidden.get(folder, set())
    ]
    assert wrong == []
