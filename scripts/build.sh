#!/usr/bin/env bash
# Builds the npm package into pkg/ (wasm-pack, --target web, release).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
wasm-pack --quiet build --release --target web --mode no-install --out-dir pkg --out-name attache
node scripts/package.mjs
