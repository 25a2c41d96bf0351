# Sourced by the scripts: binaryen's wasm-opt from npm (Debian's binaryen 108
# emits a .wasm that fails to load: "WebAssembly.Table.set(): Argument 1 is
# invalid") and cargo's bin dir come first on PATH.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# A Node that setup.sh installed (when the machine's was too old) comes next.
export PATH="$root/node_modules/.bin:$root/.tools/node/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver || true)}"
