#!/usr/bin/env bash
# Builds the package and prints benchmark figures (never part of the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
node tests/bench/frames.bench.mjs "$@"
node tests/bench/consolidated.bench.mjs
