#!/usr/bin/env bash
# Sets up, builds the package and serves the demo on localhost.
# Usage: scripts/demo.sh [port]   (default 8080)
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:-${PORT:-8080}}
case "$port" in
  '' | *[!0-9]*) echo "demo: the port must be a number, not '$port'" >&2; exit 2 ;;
esac
[ "${#port}" -le 5 ] && [ "$port" -le 65535 ] || { echo "demo: the port must be at most 65535, not $port" >&2; exit 2; }
# Not the test browsers: serving the demo needs neither them nor root.
scripts/setup.sh --demo
# The Node setup.sh may have installed, and wasm-opt, first on PATH.
. scripts/env.sh
scripts/build.sh
exec node scripts/serve.mjs "$port"
