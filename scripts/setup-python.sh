#!/usr/bin/env bash
# Creates .venv in the checkout and installs the project with its development tools, and the
# Python client of clients/python, the benchmark suite and what it shares with the tests
# (benchmarks/ and testkit/, each its own distribution). A venv already installed from the same pyproject.toml
# files is left as it is (both are editable installs, so code changes need no reinstall),
# which keeps the two README commands quick on a machine that has run them before and never
# rewrites a venv that tests use.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3.11}
command -v "$python" >/dev/null 2>&1 || python=python3
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=.venv/.installed-from
wanted=$(cat pyproject.toml clients/python/pyproject.toml testkit/pyproject.toml \
  benchmarks/pyproject.toml | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
  exit 0
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[dev]"
# The benchmark suite adds `telemetry bench` (entry point group telemetry.commands); the
# service's own wheel and image carry neither it nor testkit.
.venv/bin/python -m pip install -q -e ./testkit -e ./benchmarks
# The Python client (clients/python, its own package: the service does not depend on it),
# with its generator and data-frame extras, for its tests and clients/generate.py.
.venv/bin/python -m pip install -q -e "./clients/python[dev]"
echo "$wanted" > "$stamp"
