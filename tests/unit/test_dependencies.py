"""Every third-party import is declared where it is used (issue 23, defect 11).

Before the fix `numpy` was imported by the benchmarks and tests but declared nowhere,
`anyio` by the app only through Litestar's own requirements, and `httpx`, used by the
app only in `telemetry simulate`, was a dependency of every server.

Each file's imports (function-level ones included, read with `ast`) are checked against
the groups of pyproject.toml that its place in the tree may rely on.
"""

from __future__ import annotations

import ast
import importlib.metadata
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from app.core.config import PROJECT_ROOT

# `clients` (the generator) and `telemetry_client` (clients/python, installed from the path
# by scripts/setup-python.sh) are this repository's own.
LOCAL = {"app", "benchmarks", "testkit", "tests", "demo", "clients", "telemetry_client"}
PROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]


def names(requirements: list[str]) -> set[str]:
    """The distributions a group declares, its references to the project's extras unfolded."""
    declared: set[str] = set()
    for text in requirements:
        requirement = Requirement(text)
        if canonicalize_name(requirement.name) == canonicalize_name(PROJECT["name"]):
            for extra in requirement.extras:
                declared |= names(PROJECT["optional-dependencies"][extra])
        else:
            declared.add(canonicalize_name(requirement.name))
    return declared


MAIN = names(PROJECT["dependencies"])
EXTRAS = {extra: names(reqs) for extra, reqs in PROJECT["optional-dependencies"].items()}
# What each part of the tree may import: the server only the main dependencies, the demo's
# simulator its extra, the benchmark suite and what it shares with the tests (testkit) the
# suite's own, the tests everything of `dev`.
ALLOWED = [
    ("app/simulate/", MAIN | EXTRAS["demo"]),
    ("app/", MAIN),
    ("demo/", MAIN),
    ("benchmarks/", MAIN | EXTRAS["bench"]),
    ("testkit/", MAIN | EXTRAS["bench"]),
    ("tests/", MAIN | EXTRAS["dev"]),
]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found - LOCAL - set(sys.stdlib_module_names) - {"__future__"}


def test_every_third_party_import_is_declared_for_its_part_of_the_tree() -> None:
    distributions = importlib.metadata.packages_distributions()
    undeclared: list[str] = []
    for part, allowed in ALLOWED:
        for path in sorted((PROJECT_ROOT / part).rglob("*.py")):
            relative = path.relative_to(PROJECT_ROOT).as_posix()
            if part == "app/" and relative.startswith("app/simulate/"):
                continue
            for module in sorted(imported_modules(path)):
                providers = {canonicalize_name(d) for d in distributions.get(module, [module])}
                if not providers & allowed:
                    undeclared.append(f"{relative}: {module} ({', '.join(sorted(providers))})")
    assert undeclared == []


def test_the_server_does_not_depend_on_the_simulators_http_client() -> None:
    assert "httpx" not in MAIN
    assert "httpx" in EXTRAS["demo"]
