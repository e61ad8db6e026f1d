#!/usr/bin/env bash
# Installs what the service needs from Debian on a fresh bookworm machine:
# PostgreSQL 15, TimescaleDB (built from Debian trixie's source package, Apache-2
# edition), Mosquitto (the MQTT broker of development and tests), wrk for the HTTP
# benchmarks, chromium, whose headless mode checks that the interactive reference
# renders with the network off (tests/integration/test_docs_offline.py), pgbouncer
# (tests of transaction pooling) and Node.js with npm (the TypeScript client). Safe to run again; skips what is there.
set -euo pipefail

need_root() { if [ "$(id -u)" -ne 0 ]; then echo "sudo"; fi; }
SUDO=$(need_root)

packages=(postgresql-15 postgresql-server-dev-15 postgresql-contrib cmake gcc make xz-utils wrk
          pgbouncer debian-archive-keyring dpkg-dev mosquitto chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Node.js and npm: the TypeScript client (clients/typescript: its types are generated with
# openapi-typescript and its example is type-checked and run by the tests). Debian's own
# (18.x) is recent enough; a node that is already there (e.g. NodeSource's, which bundles
# npm and conflicts with Debian's npm package) is kept.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi

# The clusters (and brokers) of this project are owned by the project, not by Debian's services.
$SUDO systemctl disable --now postgresql >/dev/null 2>&1 || true
$SUDO systemctl disable --now pgbouncer >/dev/null 2>&1 || true
$SUDO systemctl disable --now mosquitto >/dev/null 2>&1 || true

pg_libdir=$(pg_config --pkglibdir)
if ls "$pg_libdir"/timescaledb*.so >/dev/null 2>&1; then
  echo "timescaledb: already installed in $pg_libdir"
  exit 0
fi

# A private apt configuration that only knows trixie's source packages, so that the
# system's own sources and lists stay untouched. The mirror is the one the machine uses.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
if [ -z "$mirror" ]; then
  mirror=$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
fi
[ -n "$mirror" ] || { echo "cannot find the Debian mirror of this machine" >&2; exit 1; }
mkdir -p "$work/lists/partial" "$work/archives/partial"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache::Archives=$work/archives"
          -o "APT::Sandbox::User=root")
$SUDO apt-get "${apt_opts[@]}" update -qq
(cd "$work" && $SUDO apt-get "${apt_opts[@]}" source --download-only -qq timescaledb/trixie)
tar -C "$work" -xf "$work"/timescaledb_*.orig.tar.*
src=$(find "$work" -maxdepth 1 -type d -name 'timescaledb-*' | head -n 1)
(cd "$src" && ./bootstrap -DAPACHE_ONLY=ON -DREGRESS_CHECKS=OFF -DTAP_CHECKS=OFF \
   -DWARNINGS_AS_ERRORS=OFF -DUSE_TELEMETRY=OFF >/dev/null && $SUDO make -C build -j2 install >/dev/null)
echo "timescaledb: built and installed into $pg_libdir"
