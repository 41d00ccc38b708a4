#!/usr/bin/env bash
# Runs every benchmark in its short mode (`--short`), so that none can break unseen: a benchmark
# passes when it exits 0 and its last line is its judgement of its targets (`targets: N met, M
# missed`, bench/targets.ts). Each one's output goes to the terminal; one line per benchmark
# (`bench <name>: passed|failed in <s> s; targets: ...`) goes to $BENCH_RESULTS when set, for CI,
# each missed target's line to $BENCH_RESULTS.missed, and each one's whole output to bench-<name>.log
# beside it.
# Each builds its own fleet; which may run beside which is scripts/run-tests.sh's to say.
# Usage: run-benchmarks.sh [name...] (default: every one); run-benchmarks.sh --list
set -uo pipefail
cd "$(dirname "$0")/.."
# Every benchmark: a file of bench/ that ends in runBenchmark (the others are modules they share).
all_benchmarks() {
  local file
  for file in bench/*.ts; do
    grep -q '^runBenchmark(' "$file" || continue
    file=$(basename "$file" .ts)
    echo "${file%-cpu}"
  done
}
if [ "${1:-}" = --list ]; then
  all_benchmarks
  exit 0
fi
BENCHES=("$@")
[ ${#BENCHES[@]} -gt 0 ] || mapfile -t BENCHES < <(all_benchmarks)
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
  log=$(mktemp /tmp/fb-bench-log.XXXXXX)
  # Timed (scripts/timed.sh): with $PHASE_TIMES set, CI's summary gets the benchmark's seconds and CPU.
  if bash scripts/timed.sh "bench:$name" timeout 600 npx tsx "$script" --short 2>&1 | tee "$log"; then result=passed; else result=failed; fi
  judged=$(grep -E '^targets: [0-9]+ met, [0-9]+ missed' "$log" | tail -n 1)
  # The missed targets themselves, for CI's summary of what failed.
  [ -n "${BENCH_RESULTS:-}" ] && grep -E '^target .*: MISSED( \(.*\))?$' "$log" | sed "s/^/bench $name: /" >>"$BENCH_RESULTS.missed"
  # A benchmark that threw (runBenchmark prints `bench:<name> failed: <error>`): its error, for the same summary.
  [ -n "${BENCH_RESULTS:-}" ] && grep -m 1 -E "^bench:$name failed: " "$log" | cut -c 1-300 | sed "s/^/bench $name: /" >>"$BENCH_RESULTS.missed"
  # CI keeps each benchmark's whole output beside its summary: a miss is diagnosed from it afterwards.
  if [ -n "${BENCH_RESULTS:-}" ]; then mv "$log" "$(dirname "$BENCH_RESULTS")/bench-$name.log"; else rm -f "$log"; fi
  [ -n "$judged" ] || { judged="targets: none judged (the benchmark printed no targets line)"; result=failed; }
  [ "$result" = failed ] && failed=1
  line="bench $name: $result in $(( $(date +%s) - started )) s; $judged"
  echo "$line"
  [ -n "${BENCH_RESULTS:-}" ] && echo "$line" >>"$BENCH_RESULTS"
done
exit $failed
