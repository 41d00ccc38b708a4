#!/usr/bin/env bash
# Runs the non-jest test suites (scripts/test.d/*.sh), e.g. the Go emulator's `go test`.
# Each script honours GO_TEST_JSON: when set, it appends `go test -json` output there.
set -uo pipefail
cd "$(dirname "$0")/.."
failed=0
for suite in scripts/test.d/*.sh; do
  [ -e "$suite" ] || continue
  printf '\n== test: %s\n' "$(basename "$suite" .sh)"
  bash "$suite" || failed=1
done
exit $failed
