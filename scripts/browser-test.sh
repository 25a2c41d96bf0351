#!/usr/bin/env bash
# Runs the wasm browser suites in one engine (chrome, firefox or safari, the
# last being WebKitGTK), passing extra arguments to cargo. Fails when a
# suite was skipped or ran no test: the runner itself exits 0 on both.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
engine=$1; shift
case "$engine" in
  chrome) run=(wasm-pack test --headless --chrome --chromedriver "$CHROMEDRIVER") ;;
  firefox) run=(wasm-pack test --headless --firefox --geckodriver "$(command -v geckodriver)") ;;
  # WebKitWebDriver starts MiniBrowser itself, which needs a display.
  safari) run=(xvfb-run -a wasm-pack test --headless --safari --safaridriver /usr/bin/WebKitWebDriver) ;;
  *) echo "browser-test: unknown engine $engine" >&2; exit 2 ;;
esac
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"${run[@]}" --mode no-install -- "$@" 2>&1 | tee "$log"
if grep -q "skipping" "$log"; then
  echo "browser-test: $engine skipped its tests (is WASM_BINDGEN_USE_* set?)" >&2
  exit 1
fi
passed=$(grep -oE 'test result: ok\. [0-9]+ passed' "$log" | awk '{ n += $4 } END { print n + 0 }')
if [ "$passed" -eq 0 ]; then
  echo "browser-test: $engine ran no test" >&2
  exit 1
fi
echo "browser-test: $engine, ${ATTACHE_TEST_CONTEXT:-Window}: $passed passed"
