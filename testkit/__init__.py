"""What the tests and the benchmark suite both use, in the one place both may import.

The tests (tests/) and the benchmark suite (benchmarks/) never import each other: a
benchmark does not depend on a test module, and a test of the service does not depend on
the suite. What both need lives here: starting `telemetry serve` and stopping it
(`processes`), scratch databases (`databases`), the world builder (`factories`), the
history oracles (`history_oracle`, `history_oracle_chart`) and the fake ChirpStack gRPC
server (`fake_chirpstack`). Nothing here is part of the service: the app never imports it.
"""
