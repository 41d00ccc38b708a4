#!/usr/bin/env bash
# Builds the WAN link emulator, emulator/bin/fb-wan (Go, standard library only).
# Idempotent: skipped while the binary is newer than every Go source and go.mod.
set -euo pipefail
cd "$(dirname "$0")/../../emulator"

BIN=bin/fb-wan
GO=$(command -v go || true)
[ -n "$GO" ] || GO=/usr/local/go/bin/go
if [ ! -x "$GO" ]; then
  echo "emulator: Go not found; install Go 1.26 (https://go.dev/dl/) or put it on PATH" >&2
  exit 1
fi

newer=$(find . -path ./bin -prune -o -type f \( -name '*.go' ! -name '*_test.go' -o -name go.mod \) -newer "$BIN" -print -quit 2>/dev/null || true)
if [ -x "$BIN" ] && [ -z "$newer" ]; then
  echo "fb-wan up to date"
  exit 0
fi

# No module downloads, no toolchain downloads: the emulator needs only the standard library.
GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 "$GO" build -trimpath -o "$BIN.new" ./cmd/fb-wan
mv "$BIN.new" "$BIN"
echo "built emulator/$BIN"
