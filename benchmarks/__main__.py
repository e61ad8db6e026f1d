"""`python -m benchmarks ...`: the suite's command line, as `telemetry bench ...` once the
suite is installed (benchmarks/pyproject.toml)."""

from benchmarks.cli import main

raise SystemExit(main())
