#!/usr/bin/env bash
# Builds the npm package into pkg/ (wasm-pack, --target web, release).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
# From scratch: wasm-pack leaves files an earlier build made (a snippet
# since removed, say), which would ship and count against the budget.
rm -rf pkg
wasm-pack --quiet build --release --target web --mode no-install --out-dir pkg --out-name attache
node scripts/package.mjs
