#!/usr/bin/env bash
# `make test` after setup: every runner of the project, in two stages, so that the waits of the
# fleet tests (JVMs starting, rings settling, tinc timers) overlap instead of adding up, while
# nothing that measures time shares the host with anything else.
#
# Stage 1, lanes side by side, each on fleets of its own (its own namespaces, state directory and
# Temporal port), none of them judging time:
#   static     type check, lint and format, imports
#   fleetless  the jest projects that build no fleet
#   lan        database adapters on bridged LANs of namespaces (test/db)
#   vm         VM-shaped nodes (the cloud code path), bench:vm-nodes, then bench:db (a LAN of its own,
#              tag h: the lan lane ended stage 1, the vm lane minutes before it)
#   fleet      the local emulated fleet through the engine and the CLI, bench:consistency
# Stage 2, what judges time or precision: the Go emulator's timing tests, the jest files that
# measure RTT, lateness and one-way delay, and the benchmarks with such targets (bench:events
# judges events fired within 1 s of their time: in stage 1 a second of the lanes' load made one
# late), in two light lanes on fleets of their own; then, alone, what failed beside another lane.
#
# Every test file of test/netns, test/db and test/engine is in exactly one lane or in stage 2, and
# every benchmark in exactly one place: the run refuses to start otherwise.
# Environment (all optional): JEST_JSON_DIR (each jest run's results as jest-<lane>.json),
# GO_TEST_JSON, BENCH_RESULTS (one line per benchmark), PHASE_TIMES (each step's seconds).
set -uo pipefail
cd "$(dirname "$0")/.."

# ---- where each test file and benchmark runs -------------------------------------------------
LAN_TESTS='test/db/'
VM_TESTS='test/netns/vm-[^/]*\.test\.ts|test/engine/vm-scenario\.test\.ts'
FLEET_TESTS='test/engine/(bare-host|cli-run-local)\.test\.ts|test/netns/(fleet|cli-fleet|heal|cpu-cap)\.test\.ts'
QUIET_TESTS='test/netns/(emulator|link-conditions|trace-replay|overlay-paths|loss-seed|moving-site|tcconfig-comparison|light-stacks)\.test\.ts|test/engine/scenario-engine\.test\.ts|test/unit/(telemetry-sampler|trace-replay)\.test\.ts'
FLEETLESS_PROJECTS=(unit report infra cli workflow)
LAN_BENCHES=()
VM_BENCHES=(vm-nodes db)
FLEET_BENCHES=(consistency)
# Stage 2 runs two lanes side by side, each on a fleet of its own (a namespace tag, state root,
# dev-server port and CPU for its network daemons), then what must have the host to itself.
QUIET_TAGGED_BENCHES=(events network fleets telemetry stack faults)
ALONE_BENCHES=(scale dynamics validity)

fail() { echo "run-tests: $*" >&2; exit 2; }

# A file matched by no lane would never run; one matched by two would run twice.
check_assignment() {
  local file n pattern
  for file in test/netns/*.test.ts test/db/*.test.ts test/engine/*.test.ts test/unit/telemetry-sampler.test.ts test/unit/trace-replay.test.ts; do
    n=0
    for pattern in "$LAN_TESTS" "$VM_TESTS" "$FLEET_TESTS" "$QUIET_TESTS"; do
      [[ $file =~ $pattern ]] && n=$((n + 1))
    done
    [ "$n" = 1 ] || fail "$file is in $n lanes of scripts/run-tests.sh (it must be in exactly one)"
  done
  local assigned=" ${LAN_BENCHES[*]} ${VM_BENCHES[*]} ${FLEET_BENCHES[*]} ${QUIET_TAGGED_BENCHES[*]} ${ALONE_BENCHES[*]} " name
  for name in $(bash scripts/run-benchmarks.sh --list); do
    [[ $assigned == *" $name "* ]] || fail "bench:$name is not in any lane of scripts/run-tests.sh"
  done
}
check_assignment

OUT=$(mktemp -d /tmp/fb-test.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

jest_json() { [ -n "${JEST_JSON_DIR:-}" ] && echo "--json --outputFile=$JEST_JSON_DIR/jest-$1.json"; }

# Runs a named step of a lane, timed; a failure is remembered in the lane's status, the lane goes on.
step() {
  local lane=$1 name=$2
  shift 2
  bash scripts/timed.sh "$name" "$@" || echo "$name" >>"$OUT/$lane.failed"
}

# Runs a lane in the background, its output prefixed with its name.
lane() {
  local name=$1
  shift
  ( "$@" 2>&1 | sed -u "s/^/[$name] /" ) &
}

# ---- stage 1 -----------------------------------------------------------------------------------
# The static checks judge no time, so they run at the lowest CPU priority: the cores go first to the
# lanes whose tests wait on JVMs, rings and servers with time bounds, and the checks take what those
# leave (at 1186fb6 they ended last, within 30 s of the others).
static_lane() {
  renice -n 19 -p "$BASHPID" >/dev/null
  step static typecheck npx tsc --noEmit -p tsconfig.json
  step static lint make --no-print-directory lint
  step static imports npm run --silent check:imports
}

fleetless_lane() {
  # shellcheck disable=SC2046
  step fleetless "jest (fleetless)" npx jest --selectProjects "${FLEETLESS_PROJECTS[@]}" --maxWorkers 2 \
    --testPathIgnorePatterns "$QUIET_TESTS" $(jest_json fleetless)
}

# A lane of fleet tests: its jest files one at a time, then its benchmarks.
fleet_lane() {
  local name=$1 pattern=$2
  shift 2
  # shellcheck disable=SC2046
  step "$name" "jest ($name)" npx jest --runInBand --selectProjects netns db engine --testPathPatterns "$pattern" $(jest_json "$name")
  [ $# -gt 0 ] && step "$name" "benchmarks ($name)" bash scripts/run-benchmarks.sh "$@"
}

# Lanes on fleets of their own: a state root (fleet, lease, databases) and a dev-server port each.
lan_env() ( export FRAGBENCH_STATE_DIR="$OUT/state-lan"; "$@" )
vm_env() ( export FRAGBENCH_STATE_DIR="$OUT/state-vm" FRAGBENCH_DEV_PORT=7533; "$@" )

stage1_started=$(date +%s)
lane static static_lane
lane fleetless fleetless_lane
lane lan lan_env fleet_lane lan "$LAN_TESTS" "${LAN_BENCHES[@]}"
lane vm vm_env fleet_lane vm "$VM_TESTS" "${VM_BENCHES[@]}"
lane fleet fleet_lane fleet "$FLEET_TESTS" "${FLEET_BENCHES[@]}"
wait
[ -n "${PHASE_TIMES:-}" ] && echo "stage 1 (lanes side by side): $(($(date +%s) - stage1_started)) s" >>"$PHASE_TIMES"

# ---- stage 2: what judges time, two light lanes side by side, then what needs the host alone ---
# Each lane is mostly waiting (~0.4 core between them, CI of b7c9968), so two fit beside each other:
# the timing jest files on the default fleet, and on fleet q (`fb-q-…`, its network daemons on CPU 0
# where the default fleet's are on the last CPU) the benchmarks that passed beside them (CI of
# 6820ef0). Alone after them: what failed beside the other lane there: Go's RTT precision under ten
# busy links (its pinger late: 5-7 % of round trips past max(3 ms, 5 %)), bench:scale (the verdict
# rightly said host-bound with the host 64 % busy) and bench:dynamics (ramp 94/100 datagrams); and
# bench:validity, which judges the verdict on the host's own CPU.
tagged_env() (
  export FRAGBENCH_NETNS_TAG=q FRAGBENCH_STATE_DIR="$OUT/state-q" FRAGBENCH_DEV_PORT=7633 FRAGBENCH_NETWORK_CPUS=0
  "$@"
)
stage2_started=$(date +%s)
bash scripts/wait-quiet.sh
# shellcheck disable=SC2046
lane quiet step quiet "jest (timing)" npx jest --runInBand --selectProjects unit netns engine --testPathPatterns "$QUIET_TESTS" $(jest_json timing)
lane tagged tagged_env step tagged "benchmarks (beside)" bash scripts/run-benchmarks.sh "${QUIET_TAGGED_BENCHES[@]}"
wait
step alone go bash scripts/run-test-scripts.sh
step alone "benchmarks (alone)" bash scripts/run-benchmarks.sh "${ALONE_BENCHES[@]}"
[ -n "${PHASE_TIMES:-}" ] && echo "stage 2 (two lanes, then alone): $(($(date +%s) - stage2_started)) s" >>"$PHASE_TIMES"

failed=$(cat "$OUT"/*.failed 2>/dev/null | tr '\n' ',' | sed 's/,$//; s/,/, /g')
if [ -n "$failed" ]; then
  echo "make test: failed: $failed" >&2
  exit 1
fi
