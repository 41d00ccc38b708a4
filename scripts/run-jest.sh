#!/usr/bin/env bash
# Runs every jest project. Those that build no namespace and start no fleet run two files at a
# time (one per core of these hosts); the ones that do (netns, db, engine) run one file at a time,
# alone, because they share the host's namespaces and their figures its timing. The telemetry
# sampler's test measures CPU and runs with them. With JEST_JSON_DIR set, each run's results go
# there as jest-parallel.json and jest-serial.json (CI counts them).
set -uo pipefail
cd "$(dirname "$0")/.."
json() { [ -n "${JEST_JSON_DIR:-}" ] && echo "--json --outputFile=$JEST_JSON_DIR/jest-$1.json"; }
ALONE='test/(netns|db|engine)/|test/unit/telemetry-sampler\.test\.ts'
# shellcheck disable=SC2046
bash scripts/timed.sh "jest (parallel)" npx jest --selectProjects unit report infra cli workflow --maxWorkers 2 --testPathIgnorePatterns "$ALONE" $(json parallel)
parallel=$?
# shellcheck disable=SC2046
bash scripts/timed.sh "jest (alone)" npx jest --runInBand --selectProjects unit netns db engine --testPathPatterns "$ALONE" $(json serial)
serial=$?
[ "$parallel" -eq 0 ] && [ "$serial" -eq 0 ]
