#!/usr/bin/env bash
# Sets up, builds the package and serves the demo on localhost.
# Usage: scripts/demo.sh [port]   (default 8080)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The Node setup.sh may have installed, and wasm-opt, first on PATH.
. scripts/env.sh
scripts/build.sh
exec node scripts/serve.mjs "${1:-${PORT:-8080}}"
