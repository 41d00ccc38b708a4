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
# FB_WAN_BENCH=1 with 750 datagrams: the relay's CPU-per-datagram measurement in its short mode,
# so that it cannot break unseen (its full run: see relay/cpu_bench_test.go).
if [ -n "${GO_TEST_JSON:-}" ]; then
  FB_WAN_BENCH=1 FB_WAN_BENCH_N=750 "$GO" test -p 1 -count=1 -json ./... >>"$GO_TEST_JSON"
else
  FB_WAN_BENCH=1 FB_WAN_BENCH_N=750 "$GO" test -p 1 -count=1 -v ./...
fi
