#!/usr/bin/env bash
# Runs once, when the primary's data directory is created (docker-entrypoint-initdb.d):
# a replication role for the standby, its slot (the primary keeps the WAL it still
# needs), and the pg_hba rule letting it stream.
set -euo pipefail
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD '${REPLICATION_PASSWORD}';
SELECT pg_create_physical_replication_slot('standby1');
SQL
echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
