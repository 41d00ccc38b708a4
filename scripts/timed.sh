#!/usr/bin/env bash
# Runs a command and, with PHASE_TIMES set, appends `<name>: <seconds> s` to that file, so CI can
# say where its time went (the target is 20 minutes). Exits with the command's status.
# Usage: scripts/timed.sh <name> <command> [args...]
set -uo pipefail
name=$1
shift
started=$(date +%s)
"$@"
status=$?
[ -n "${PHASE_TIMES:-}" ] && echo "$name: $(( $(date +%s) - started )) s" >>"$PHASE_TIMES"
exit $status
