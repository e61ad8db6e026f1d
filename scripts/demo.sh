#!/usr/bin/env bash
# README command 1: installs what is missing, starts the project's TimescaleDB, loads the
# demo world (once), prints a working API key and a first curl, then serves the API with
# live traffic: `telemetry simulate` posts ChirpStack uplinks for the world's devices every
# few seconds through the real ingest route, and `telemetry webhooks listen` (the demo
# partner's webhook endpoint, 127.0.0.1:8001) verifies and prints every event it is sent.
# Ctrl-C stops all three. SIMULATE=0 serves without the simulator and the receiver.
# The terminal keeps the banner, the key, the URLs and the events; the server's own log
# (a JSON line per request) goes to $DEMO_OUT/serve.log (default demo/out/serve.log).
# PORT, WORKERS, WEBHOOK_PORT (the receiver, default 8001), DATABASE_URL and DEMO_OUT
# change where things are.
set -euo pipefail
cd "$(dirname "$0")/.."
# The demo's receiver is plain http on loopback, which webhooks refuse unless allowed.
export TELEMETRY_WEBHOOKS_ALLOW_PRIVATE=1
# The live page (/live/, app/live/page.py) is served by the app when this is on.
export TELEMETRY_LIVE_PAGE=1
bash scripts/install-system.sh
bash scripts/setup-python.sh
export DATABASE_URL=${DATABASE_URL:-$(.venv/bin/telemetry db start | tail -n 1)}
.venv/bin/telemetry db migrate
port=${PORT:-8000}
export WEBHOOK_PORT=${WEBHOOK_PORT:-8001}
out=${DEMO_OUT:-demo/out}

mkdir -p "$out"
.venv/bin/python -m demo.world > "$out/world.json"
partner_id=$(.venv/bin/python -c 'import json,sys; print(json.load(open(sys.argv[1]))["partners"][0]["id"])' "$out/world.json")
site_id=$(.venv/bin/python -c 'import json,sys; print(json.load(open(sys.argv[1]))["partners"][0]["subAccounts"][0]["sites"][0]["id"])' "$out/world.json")
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
  .venv/bin/telemetry world load "$out/world.json"
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
Live page (values update as the simulator's uplinks arrive; the key stays in the fragment):
  http://127.0.0.1:$port/live/#key=$key&site=$site_id&field=temperature

MSG
children=()
trap 'kill "${children[@]}" 2>/dev/null || true' EXIT INT TERM
.venv/bin/telemetry serve --host 127.0.0.1 --port "$port" --workers "${WORKERS:-2}" \
    > "$out/serve.log" 2>&1 &
children+=($!)
# The banner (where it listens, the docs, health, metrics) is the log's lines that are not
# JSON records, shown once the API answers; a server that fails shows its log's end.
for _ in $(seq 150); do
  if .venv/bin/python - "$port" <<'PY' 2>/dev/null
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/v1/health", timeout=1)
PY
  then break; fi
  if ! kill -0 "${children[0]}" 2>/dev/null; then
    echo "the server stopped; the end of $out/serve.log:" >&2
    tail -n 20 "$out/serve.log" >&2
    exit 1
  fi
  sleep 0.2
done
grep -v '^{' "$out/serve.log" || true
echo "Server log (a JSON line per request): $out/serve.log"
if [ "${SIMULATE:-1}" = "0" ]; then
  wait -n "${children[@]}"
  exit
fi

secret=$(.venv/bin/python -c 'from demo.world import WEBHOOK_SECRET; print(WEBHOOK_SECRET)')
token=$(.venv/bin/python -c 'from demo.world import INTEGRATION_TOKEN; print(INTEGRATION_TOKEN)')
echo "Signed webhook events of the demo partner are printed below as they arrive."
.venv/bin/telemetry webhooks listen --port "$WEBHOOK_PORT" --secret "$secret" &
children+=($!)
.venv/bin/telemetry simulate --partner "$partner_id" --token "$token" \
    --url "http://127.0.0.1:$port" --every 3 > "$out/simulate.log" 2>&1 &
children+=($!)
echo "Simulator: 8 uplinks every 3 s (log: $out/simulate.log); watch /latest change:"
echo "  curl -s -H \"Authorization: Bearer $key\" http://127.0.0.1:$port/api/v1/devices?limit=1"
wait -n "${children[@]}"
