#!/usr/bin/env bash
# Installs what building and testing attache needs, skipping whatever is
# already present, so it is quick on a ready machine and safe to re-run.
# Only package registries are reachable: nothing here downloads a binary.
# Usage: scripts/setup.sh [--demo]   (--demo: what building and serving
# the demo needs, without the test browsers, which need root or sudo)
set -euo pipefail
cd "$(dirname "$0")/.."
demo_only=
[ "${1:-}" = --demo ] && demo_only=1

say() { printf 'setup: %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_updated=
apt_install() {
  if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

command -v cargo >/dev/null || { say "cargo is missing: install Rust with rustup first"; exit 1; }
# proptest, which the native tests use, needs 1.88; the demo's build,
# wasm-bindgen-cli 0.2.130's 1.86 (the library alone: 1.85). Installing
# wasm-pack 0.15.1 --locked needs 1.91: its lock holds cargo-platform
# 0.3.3. Cargo's bin dir is looked in, as below.
rust=$(rustc --version | awk '{ print $2 }')
floor=1.88.0
[ -n "$demo_only" ] && floor=1.86.0
PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH" command -v wasm-pack >/dev/null || floor=1.91.0
printf '%s\n%s\n' "$floor" "$rust" | sort -V -C || { say "rustc $rust is too old: this needs $floor or later (rustup update)"; exit 1; }
# cargo install builds C code (ring, under wasm-pack) and links with cc.
if ! command -v cc >/dev/null; then
  say "installing a C toolchain (build-essential) from Debian"
  apt_install build-essential
fi
# A Node installed by this script (below) comes first, as in env.sh, and
# what cargo install puts in cargo's bin dir is found, so a re-run skips it.
export PATH="$PWD/.tools/node/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# The CLI must equal the wasm-bindgen crate in Cargo.lock to the patch.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
  say "installing wasm-bindgen-cli $want (found: ${have:-none}); takes a few minutes"
  # No --locked: one of its locked dependencies is gone from the registry.
  cargo install wasm-bindgen-cli --version "$want"
fi

if ! command -v wasm-pack >/dev/null; then
  say "installing wasm-pack; takes a few minutes"
  cargo install wasm-pack --locked --version 0.15.1
fi

if [ -z "$demo_only" ]; then
  # The tests start /usr/bin/chromium, not whichever is first on PATH.
  if [ ! -x /usr/bin/chromium ] || ! command -v chromedriver >/dev/null; then
    say "installing chromium and chromium-driver from Debian"
    apt_install chromium chromium-driver
  fi

  if ! command -v firefox-esr >/dev/null; then
    say "installing firefox-esr from Debian"
    apt_install firefox-esr
  fi

  # WebKitWebDriver starts MiniBrowser itself, which needs a display: Xvfb.
  # xauth is only a Recommends of xvfb, and xvfb-run needs it.
  if [ ! -x /usr/bin/WebKitWebDriver ] || ! command -v xvfb-run >/dev/null || ! command -v xauth >/dev/null; then
    say "installing webkit2gtk-driver and xvfb from Debian"
    apt_install webkit2gtk-driver xvfb xauth
  fi

  # geckodriver is not packaged by Debian; crates.io has it (pinned).
  geckodriver_version=0.37.1
  if [ "$(geckodriver --version 2>/dev/null | awk 'NR==1 { print $2 }')" != "$geckodriver_version" ]; then
    say "installing geckodriver $geckodriver_version; takes several minutes"
    cargo install geckodriver --locked --version "$geckodriver_version"
  fi
fi

# Vite, vitest and size-limit need Node 20.19+, 22.12+ or 24+ (not 21 or
# 23); Debian 12 has 18.
# The npm registry's `node` package is the official build, so an older or
# missing Node is replaced by one in .tools/ (git-ignored), which env.sh
# puts first on PATH.
node_ok() {
  command -v node >/dev/null && command -v npm >/dev/null &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit((a === 20 && b >= 19) || (a === 22 && b >= 12) || a >= 24 ? 0 : 1)'
}
if ! node_ok; then
  if ! command -v npm >/dev/null; then
    say "installing node and npm from Debian, to fetch a newer node with"
    apt_install nodejs npm
  fi
  if ! node_ok; then
    say "installing node 22 from the npm registry into .tools/node (found: $(node --version 2>/dev/null || echo none))"
    npm install --prefix .tools/node --no-audit --no-fund --loglevel=error node@22
    hash -r # bash remembers where it last found node
    node_ok || { say "node 22 did not install: $(node --version 2>&1)"; exit 1; }
  fi
fi

# npm ci only when the lock file changed since the last install.
stamp=node_modules/.attache-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  say "installing npm packages (binaryen for wasm-opt, playwright-core)"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
