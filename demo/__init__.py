"""The demo world: `python -m demo.world > world.json`."""
