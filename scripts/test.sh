#!/usr/bin/env bash
# README command 2: installs what is missing, then lint, type check and the test suite
# against the project's own TimescaleDB cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system.sh
bash scripts/setup-python.sh
.venv/bin/telemetry db start >/dev/null
echo "== ruff"
.venv/bin/ruff check app tests benchmarks testkit demo clients
.venv/bin/ruff format --check app tests benchmarks testkit demo clients
echo "== mypy"
.venv/bin/mypy
# The Python client (clients/python), generated part included, under --strict.
(cd clients/python && ../../.venv/bin/mypy)
.venv/bin/mypy --strict --follow-imports=silent clients/generate.py
echo "== pytest"
.venv/bin/pytest "$@"
