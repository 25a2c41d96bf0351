#!/usr/bin/env bash
# twiggy's view of the shipped wasm, with names: the release build run
# through wasm-bindgen and wasm-opt -Os as scripts/build.sh does, but keeping
# the name section, then the gzipped cost of each area of the code.
# Usage: scripts/size-profile.sh [twiggy top args...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
command -v twiggy >/dev/null || cargo install twiggy --locked
out=target/size-profile
cargo build --quiet --release --target wasm32-unknown-unknown
rm -rf "$out" && mkdir -p "$out"
wasm-bindgen --keep-debug --target web --out-dir "$out" target/wasm32-unknown-unknown/release/attache.wasm
# The flags wasm-pack passes, from Cargo.toml, so the two cannot drift.
flags=$(sed -n 's/^wasm-opt = \[\(.*\)\]$/\1/p' Cargo.toml | tr -d '",')
[ -n "$flags" ] || { echo "no wasm-opt flags found in Cargo.toml" >&2; exit 1; }
# shellcheck disable=SC2086 # one word per flag
wasm-opt $flags -g "$out/attache_bg.wasm" -o "$out/named.wasm"
[ $# -gt 0 ] || set -- -n 25
twiggy top "$@" "$out/named.wasm"
# The same wasm by area, gzipped: what removing each would save.
node scripts/size-areas.mjs "$out/named.wasm"
