#!/usr/bin/env bash
# Sets up what is missing, then runs every test: native Rust, wasm in
# headless Chromium, the built package in Node, the demo end to end, and
# the packed package in consumer projects.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/env.sh

step() { printf '\n== %s\n' "$*"; }

step "native: cargo test"
cargo test --quiet

# Every browser suite runs in a window, a dedicated worker and a service
# worker; ATTACHE_TEST_CONTEXT lets a test prove where it ran.
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-60}
for context in BROWSER:Window DEDICATED_WORKER:DedicatedWorkerGlobalScope SERVICE_WORKER:ServiceWorkerGlobalScope; do
  step "browser ($context): wasm-pack test --headless --chrome"
  env "WASM_BINDGEN_USE_${context%%:*}=1" ATTACHE_TEST_CONTEXT="${context#*:}" \
    wasm-pack test --headless --chrome --chromedriver "$CHROMEDRIVER" --mode no-install
done

step "package: build pkg/"
scripts/build.sh

# Consumers install the npm-packed tarball into their own projects (Vite,
# webpack, plain pages, a worker, Node, tsc) from the npm registry.
step "node, end to end and consumers: node --test"
node --test tests/node/ tests/e2e/ tests/consumers/
