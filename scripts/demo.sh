#!/usr/bin/env bash
# README command 1: installs what is missing, starts the project's TimescaleDB, loads the
# demo world (once), prints a working API key and a first curl, then serves the API.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system.sh
bash scripts/setup-python.sh
export DATABASE_URL=${DATABASE_URL:-$(.venv/bin/telemetry db start | tail -n 1)}
.venv/bin/telemetry db migrate
port=${PORT:-8000}

mkdir -p demo/out
.venv/bin/python -m demo.world > demo/out/world.json
partner_id=$(.venv/bin/python -c 'import json,sys; print(json.load(open(sys.argv[1]))["partners"][0]["id"])' demo/out/world.json)
already=$(.venv/bin/python - "$partner_id" <<'PY'
import asyncio, os, sys
import asyncpg
async def main() -> None:
    conn = await asyncpg.connect(os.environ["DATABASE_URL"])
    print(await conn.fetchval("SELECT count(*) FROM partners WHERE id = $1::uuid", sys.argv[1]))
    await conn.close()
asyncio.run(main())
PY
)
if [ "$already" = "0" ]; then
  .venv/bin/telemetry world load demo/out/world.json
else
  echo "demo world already loaded"
fi
key=$(.venv/bin/telemetry keys create --partner "$partner_id" --name "demo $(date -u +%FT%TZ)" \
      --scopes devices:read,telemetry:read,profiles:read,downlinks:write,members:read | tail -n 1)
cat <<MSG

API key (partner, shown once): $key
Try:
  curl -s -H "Authorization: Bearer $key" "http://127.0.0.1:$port/api/v1/devices?limit=3"
Interactive reference: http://127.0.0.1:$port/api/v1/docs (a tour of a dashboard: README.md)

MSG
exec .venv/bin/telemetry serve --host 127.0.0.1 --port "$port" --workers "${WORKERS:-2}"
