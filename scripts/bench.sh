#!/usr/bin/env bash
# Builds the package and runs the benchmarks side by side (never part of the
# tests): target/bench/results.json and the README's Performance table.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/env.sh
scripts/build.sh
node tests/bench/run.mjs "$@"
