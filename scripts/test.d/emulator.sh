#!/usr/bin/env bash
# The emulator's Go tests (loopback only): config validation, control protocol, FIFO, rate cap,
# loss, cut/restore, and RTT precision under ten busy links. `-v` prints the measured figures.
# With GO_TEST_JSON set, the `go test -json` output is appended to that file.
set -euo pipefail
cd "$(dirname "$0")/../../emulator"

GO=$(command -v go || true)
[ -n "$GO" ] || GO=/usr/local/go/bin/go
export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
# -p 1: the timing tests must not share the two cores with the compiler building the next package.
if [ -n "${GO_TEST_JSON:-}" ]; then
  "$GO" test -p 1 -count=1 -json ./... >>"$GO_TEST_JSON"
else
  "$GO" test -p 1 -count=1 -v ./...
fi
