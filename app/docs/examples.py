"""Examples of the OpenAPI document, answers of the real service on the demo world.

`examples.json` is written by `python -m demo.record_examples` (it loads demo/world.py
into a scratch database and calls every route with the demo keys); regenerate it when a
shape changes. Times in it are those of the run that wrote it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_FILE = Path(__file__).with_name("examples.json")
_LOADED: dict[str, Any] = json.loads(_FILE.read_text()) if _FILE.exists() else {}

# operationId -> the `data`-level example of its success answer.
RESPONSE_EXAMPLES: dict[str, Any] = _LOADED.get("responses", {})
# operationId -> named request-body examples ({name: {summary, value}}).
BODY_EXAMPLES: dict[str, Any] = _LOADED.get("bodies", {})
