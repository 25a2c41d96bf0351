#!/usr/bin/env bash
# Sets up what is missing, then runs every test: native Rust, wasm in
# headless Chromium, the built package in Node, and the demo end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/env.sh

step() { printf '\n== %s\n' "$*"; }

step "native: cargo test"
cargo test --quiet

step "browser: wasm-pack test --headless --chrome"
WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-60} \
  wasm-pack test --headless --chrome --chromedriver "$CHROMEDRIVER" --mode no-install

step "package: build pkg/"
scripts/build.sh

step "node + demo end to end: node --test"
node --test tests/node/ tests/e2e/
