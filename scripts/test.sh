#!/usr/bin/env bash
# Sets up what is missing, then runs every test: native Rust, wasm in
# headless Chromium, Firefox and WebKit (each in a window, a dedicated
# worker and a service worker), the built package in Node, the demo end to
# end, and the packed package in consumer projects.
set -euo pipefail
cd "$(dirname "$0")/.."
# A mode or driver config left in the caller's shell would reach every run.
unset WASM_BINDGEN_USE_BROWSER WASM_BINDGEN_USE_DEDICATED_WORKER WASM_BINDGEN_USE_SHARED_WORKER \
  WASM_BINDGEN_USE_SERVICE_WORKER WASM_BINDGEN_USE_NODE_EXPERIMENTAL WASM_BINDGEN_USE_DENO WASM_BINDGEN_TEST_WEBDRIVER_JSON
scripts/setup.sh
. scripts/env.sh

step() { printf '\n== %s\n' "$*"; }

step "native: cargo test"
cargo test --quiet

export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-60}
# ATTACHE_TEST_CONTEXT lets a test prove where it ran; it is read at compile
# time, so the contexts are the outer loop and each compiles once.
for context in BROWSER:Window DEDICATED_WORKER:DedicatedWorkerGlobalScope SERVICE_WORKER:ServiceWorkerGlobalScope; do
  for engine in chrome firefox safari; do
    step "browser ($engine, ${context#*:}): wasm-pack test"
    env "WASM_BINDGEN_USE_${context%%:*}=1" ATTACHE_TEST_CONTEXT="${context#*:}" \
      scripts/browser-test.sh "$engine"
  done
done

# A real quota: Firefox with a 4 MiB origin limit set through its prefs.
step "browser (firefox, small quota): wasm-pack test --features quota-tests"
WASM_BINDGEN_USE_BROWSER=1 WASM_BINDGEN_TEST_WEBDRIVER_JSON=tests/quota/firefox.json \
  scripts/browser-test.sh firefox --features quota-tests --test web_quota

step "package: build pkg/"
scripts/build.sh

# Every byte ships in every page: the slim entry's gzipped size has a
# budget (.size-limit.json), so no change grows it unseen.
step "size: size-limit"
npx --no-install size-limit

# Consumers install the npm-packed tarball into their own projects (Vite,
# webpack, plain pages, a worker, Node, tsc) from the npm registry.
# The adapters against the frameworks' own suites (LangGraph's checkpointer
# validation), on both stores; IndexedDB through fake-indexeddb.
step "adapters: vitest"
npx --no-install vitest run

# The crash trials run alone: with the other files in parallel on 2 cores,
# Chromium relaunched after a SIGKILL sometimes opened the profile without
# the trial's database at all (3 of 6 loaded runs on 2026-12-01, never in 4
# runs alone). Under investigation; see issue 9's closing note.
step "end to end: crash trials, alone"
node --test tests/e2e/crash.test.mjs

step "node, end to end and consumers: node --test"
# Files, not folders: from Node 21 a folder argument is read as a module.
node --test tests/node/*.test.mjs tests/consumers/*.test.mjs $(ls tests/e2e/*.test.mjs | grep -v '/crash\.test\.mjs$')
