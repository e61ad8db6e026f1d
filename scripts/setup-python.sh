#!/usr/bin/env bash
# Creates .venv in the checkout and installs the project with its development tools. A venv
# already installed from the same pyproject.toml is left as it is (the project itself is an
# editable install, so code changes need no reinstall), which keeps the two README commands
# quick on a machine that has run them before and never rewrites a venv that tests use.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3.11}
command -v "$python" >/dev/null 2>&1 || python=python3
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=.venv/.installed-from
wanted=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
  exit 0
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[dev]"
echo "$wanted" > "$stamp"
