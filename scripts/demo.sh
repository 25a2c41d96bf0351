#!/usr/bin/env bash
# Sets up, builds the package and serves the demo on localhost.
# Usage: scripts/demo.sh [port]   (default 8080)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec node scripts/serve.mjs "${1:-${PORT:-8080}}"
