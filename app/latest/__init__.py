"""Latest values: GET /devices/{id}/latest, its per-worker cache and the instance's table of
generations that keeps the workers' caches current (api-spec 2.4, D11)."""
