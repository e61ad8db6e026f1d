"""Regenerates the clients' generated parts from the served OpenAPI document.

    python -m clients.generate                      # the document of this checkout's app
    python -m clients.generate --url http://127.0.0.1:8000/api/v1/openapi.json

Writes, from one document:
- clients/openapi.json: the document itself (indented), which both generators read;
- clients/python/telemetry_client/generated/: calls and models by openapi-python-client
  (the version pinned in clients/python/pyproject.toml, checked before it runs);
- clients/typescript/src/schema.d.ts: types by openapi-typescript (the version pinned in
  clients/typescript/package-lock.json; `npm ci` installs it when node_modules is missing).

Without `--url` the document is built in-process by the same code that serves
/api/v1/openapi.json (no database is needed for it). `--out DIR` writes the same files under
DIR instead of the checkout (tests/integration/test_clients_in_step.py compares the two).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path
from typing import Any

CLIENTS = Path(__file__).resolve().parent
ROOT = CLIENTS.parent
DOCUMENT = Path("openapi.json")
PYTHON_OUT = Path("python/telemetry_client/generated")
TYPESCRIPT_OUT = Path("typescript/src/schema.d.ts")
GENERATOR = "openapi-python-client"


class GenerationError(Exception):
    """A generator is missing, of another version than the pinned one, or failed."""


def served_document(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 (a URL the user gives)
        document: dict[str, Any] = json.loads(response.read())
    return document


def app_document() -> dict[str, Any]:
    """The document /api/v1/openapi.json serves, built from this checkout's app."""
    from app.core.config import Settings
    from app.docs.document import complete
    from app.main import create_app

    # The document does not depend on the database; the URL is never connected to.
    app = create_app(Settings(database_url="postgresql://generate@127.0.0.1:1/none"))
    document: dict[str, Any] = json.loads(json.dumps(complete(app.openapi_schema.to_schema(), app)))
    return document


def pinned_generator_version() -> str:
    project = tomllib.loads((CLIENTS / "python" / "pyproject.toml").read_text())["project"]
    for requirement in project["optional-dependencies"]["dev"]:
        if requirement.startswith(GENERATOR + "=="):
            return str(requirement.split("==", 1)[1])
    raise GenerationError(f"clients/python/pyproject.toml pins no {GENERATOR}")


def generate_python(document: Path, out: Path) -> None:
    wanted = pinned_generator_version()
    try:
        installed = importlib.metadata.version(GENERATOR)
    except importlib.metadata.PackageNotFoundError:
        raise GenerationError(
            f"{GENERATOR} is not installed: pip install -e './clients/python[dev]'"
        ) from None
    if installed != wanted:
        raise GenerationError(f"{GENERATOR} {installed} is installed; the pin is {wanted}")
    executable = Path(sys.executable).parent / GENERATOR
    out.parent.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(  # noqa: S603 (the venv's own generator)
        [
            str(executable),
            "generate",
            "--path",
            str(document),
            "--meta",
            "none",
            "--config",
            str(CLIENTS / "python" / "generator.yaml"),
            "--output-path",
            str(out),
            "--overwrite",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0 or not (out / "client.py").is_file():
        raise GenerationError(f"{GENERATOR} failed:\n{result.stdout}\n{result.stderr}")
    # Its warnings name what it could not generate: a document it reads whole has none.
    if "Endpoint will not be generated" in result.stdout + result.stderr:
        raise GenerationError(f"{GENERATOR} left operations out:\n{result.stdout}")


def node_available() -> bool:
    return shutil.which("node") is not None and shutil.which("npm") is not None


def npm_install(project: Path) -> None:
    """`npm ci` from the lock file when node_modules is missing or older than the lock."""
    marker = project / "node_modules" / ".package-lock.json"
    lock = project / "package-lock.json"
    if marker.is_file() and marker.stat().st_mtime >= lock.stat().st_mtime:
        return
    subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],  # noqa: S607
        cwd=project,
        check=True,
    )


def generate_typescript(document: Path, out: Path) -> None:
    if not node_available():
        raise GenerationError("node and npm are needed for the TypeScript types")
    project = CLIENTS / "typescript"
    npm_install(project)
    out.parent.mkdir(parents=True, exist_ok=True)
    cli = project / "node_modules" / "openapi-typescript" / "bin" / "cli.js"
    result = subprocess.run(  # noqa: S603
        ["node", str(cli), str(document), "--output", str(out)],  # noqa: S607
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    if result.returncode != 0:
        raise GenerationError(f"openapi-typescript failed:\n{result.stdout}\n{result.stderr}")


def generate(document: dict[str, Any], out: Path = CLIENTS, typescript: bool = True) -> list[Path]:
    """Writes the document and what is generated from it under `out`; returns the paths."""
    out.mkdir(parents=True, exist_ok=True)
    document_path = out / DOCUMENT
    document_path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    generate_python(document_path, out / PYTHON_OUT)
    written = [document_path, out / PYTHON_OUT]
    if typescript:
        generate_typescript(document_path, out / TYPESCRIPT_OUT)
        written.append(out / TYPESCRIPT_OUT)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clients.generate", description=__doc__)
    parser.add_argument("--url", help="a served /api/v1/openapi.json (default: this app's)")
    parser.add_argument("--out", type=Path, default=CLIENTS, help="default: clients/")
    parser.add_argument(
        "--no-typescript", action="store_true", help="only the document and the Python client"
    )
    options = parser.parse_args(argv)
    document = served_document(options.url) if options.url else app_document()
    try:
        written = generate(document, options.out, typescript=not options.no_typescript)
    except GenerationError as error:
        print(f"clients.generate: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
