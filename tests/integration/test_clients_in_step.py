"""Generated means in step (issue 29, item 3): both clients are regenerated from the served
OpenAPI document and compared with what is committed, so that a route change without a
regenerated client cannot land. The fix is one command (its message says which).
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from clients.generate import (
    CLIENTS,
    DOCUMENT,
    PYTHON_OUT,
    TYPESCRIPT_OUT,
    generate_python,
    generate_typescript,
    node_available,
)
from tests.support.servers import LiveServer

FIX = (
    "the committed clients differ from what the served document generates: run "
    "`.venv/bin/python -m clients.generate` and commit clients/"
)


@pytest.fixture(scope="module")
def regenerated(demo_served: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The served document written as clients/generate.py writes it, in a scratch folder."""
    out = tmp_path_factory.mktemp("clients")
    document: dict[str, Any] = httpx.get(f"{demo_served.base_url}/api/v1/openapi.json").json()
    (out / DOCUMENT).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return out


def _files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def _differences(committed: dict[str, bytes], fresh: dict[str, bytes]) -> list[str]:
    lines = []
    for name in sorted(set(committed) | set(fresh)):
        if committed.get(name) == fresh.get(name):
            continue
        if name not in committed:
            lines.append(f"not committed: {name}")
        elif name not in fresh:
            lines.append(f"no longer generated: {name}")
        else:
            diff = difflib.unified_diff(
                committed[name].decode().splitlines(),
                fresh[name].decode().splitlines(),
                f"committed/{name}",
                f"generated/{name}",
                lineterm="",
                n=1,
            )
            lines.extend(list(diff)[:40])
    return lines


def test_the_committed_document_is_the_served_one(regenerated: Path) -> None:
    committed = (CLIENTS / DOCUMENT).read_text()
    fresh = (regenerated / DOCUMENT).read_text()
    assert committed == fresh, (
        FIX
        + "\n"
        + "\n".join(
            _differences({"openapi.json": committed.encode()}, {"openapi.json": fresh.encode()})
        )
    )


def test_the_python_client_is_generated_from_the_served_document(regenerated: Path) -> None:
    generate_python(regenerated / DOCUMENT, regenerated / PYTHON_OUT)
    differences = _differences(_files(CLIENTS / PYTHON_OUT), _files(regenerated / PYTHON_OUT))
    assert differences == [], FIX + "\n" + "\n".join(differences[:200])


@pytest.mark.skipif(
    not node_available(),
    reason="node and npm are not installed: the TypeScript types are not regenerated here "
    "(scripts/install-system.sh installs them)",
)
def test_the_typescript_types_are_generated_from_the_served_document(regenerated: Path) -> None:
    generate_typescript(regenerated / DOCUMENT, regenerated / TYPESCRIPT_OUT)
    committed = {"schema.d.ts": (CLIENTS / TYPESCRIPT_OUT).read_bytes()}
    fresh = {"schema.d.ts": (regenerated / TYPESCRIPT_OUT).read_bytes()}
    differences = _differences(committed, fresh)
    assert differences == [], FIX + "\n" + "\n".join(differences[:200])
