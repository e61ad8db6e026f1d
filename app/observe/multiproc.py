"""The directory of prometheus-client's multiprocess mode, prepared by `telemetry serve`.

prometheus-client chooses between in-memory and file-backed values when it is first
imported, and granian's workers may be forked from the serving process, so this runs
before anything imports prometheus-client (this module must not import it).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare_multiprocess_dir() -> Path:
    """A fresh directory for the workers' metric files, exported to the workers."""
    existing = os.environ.get(MULTIPROC_ENV)
    if existing:
        directory = Path(existing)
        shutil.rmtree(directory, ignore_errors=True)
    else:
        directory = Path(tempfile.mkdtemp(prefix="telemetry-metrics-"))
    directory.mkdir(parents=True, exist_ok=True)
    os.environ[MULTIPROC_ENV] = str(directory)
    return directory
