"""Named queries loaded once from `sql/<area>/*.sql`.

The syntax is aiosql's: each query starts with a `-- name: <name>` line followed by a
one-line `--` doc comment. Queries are addressed as `QUERIES["<area>.<name>"]`.
"""

from __future__ import annotations

import re
from pathlib import Path

from app.core.config import PROJECT_ROOT

SQL_DIR = PROJECT_ROOT / "sql"
_NAME_LINE = re.compile(r"^--\s*name:\s*([A-Za-z_][A-Za-z0-9_]*)\S*\s*$", re.MULTILINE)


def parse_queries(text: str, area: str) -> dict[str, str]:
    queries: dict[str, str] = {}
    matches = list(_NAME_LINE.finditer(text))
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        body = text[match.end() : end]
        statement = "\n".join(
            line for line in body.splitlines() if not line.lstrip().startswith("--")
        ).strip()
        name = f"{area}.{match.group(1)}"
        if name in queries:
            raise ValueError(f"query {name} is defined twice")
        queries[name] = statement.rstrip(";")
    return queries


def load_queries(root: Path = SQL_DIR) -> dict[str, str]:
    queries: dict[str, str] = {}
    for path in sorted(root.glob("*/*.sql")):
        area = path.parent.name
        for name, statement in parse_queries(path.read_text(), area).items():
            if name in queries:
                raise ValueError(f"query {name} is defined twice")
            queries[name] = statement
    return queries


QUERIES: dict[str, str] = load_queries()
