#!/usr/bin/env bash
# Runs every benchmark in its short mode (`--short`), so that none can break unseen: a benchmark
# passes when it exits 0. Each one's output goes to the terminal; one line per benchmark
# (`bench <name>: passed|failed in <s> s`) goes to $BENCH_RESULTS when set, for CI to count.
# Benchmarks build their own fleets, one at a time: none may run beside another.
set -uo pipefail
cd "$(dirname "$0")/.."
BENCHES=(network scale dynamics fleets db events validity telemetry stack faults vm-nodes consistency)
failed=0
for name in "${BENCHES[@]}"; do
  script="bench/${name}.ts"
  [ "$name" = stack ] && script=bench/stack-cpu.ts
  if [ ! -f "$script" ]; then
    echo "bench $name: $script is missing" >&2
    failed=1
    [ -n "${BENCH_RESULTS:-}" ] && echo "bench $name: failed in 0 s" >>"$BENCH_RESULTS"
    continue
  fi
  printf '\n== bench: %s (short)\n' "$name"
  started=$(date +%s)
  if timeout 600 npx tsx "$script" --short; then result=passed; else result=failed; failed=1; fi
  line="bench $name: $result in $(( $(date +%s) - started )) s"
  echo "$line"
  [ -n "${BENCH_RESULTS:-}" ] && echo "$line" >>"$BENCH_RESULTS"
done
exit $failed
