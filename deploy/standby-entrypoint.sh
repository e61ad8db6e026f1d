#!/usr/bin/env bash
# A hot standby of the `db` service: the first start takes a base backup through the
# slot made by primary-init.sh (-R writes primary_conninfo and standby.signal); every
# start then runs PostgreSQL in hot-standby mode, streaming from the primary.
set -euo pipefail
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until pg_isready -h db -p 5432 -U replicator; do sleep 1; done
  mkdir -p "$PGDATA" && chmod 700 "$PGDATA"
  PGPASSWORD="$REPLICATION_PASSWORD" pg_basebackup -h db -p 5432 -U replicator \
    -D "$PGDATA" -X stream -S standby1 -R -c fast
fi
exec postgres -c hot_standby=on -c hot_standby_feedback=on \
  -c shared_preload_libraries=timescaledb -c timescaledb.telemetry_level=off \
  -c max_connections=200 -c jit=off
