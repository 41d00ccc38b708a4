#!/usr/bin/env bash
# Runs a command and, with PHASE_TIMES set, appends `<name>: <seconds> s` to that file, so CI can
# say where its time went (the target is 20 minutes). Where the host has cgroup v1's cpuacct (as
# root), the line also gives the CPU seconds the command and everything it started used
# (`<name>: 300 s (CPU 410 s)`): the lanes of stage 1 share 2 cores, so a step's CPU, not its wall
# time, says what cutting it would save. Exits with the command's status.
# Usage: scripts/timed.sh <name> <command> [args...]
set -uo pipefail
name=$1
shift
started=$(date +%s)

# A cgroup of its own under the caller's (so a timed step inside a timed step counts in both),
# named fb-ci-<pid>; children inherit it, so daemons a step starts are counted too.
ACCT=/sys/fs/cgroup/cpuacct
group=""
if [ -n "${PHASE_TIMES:-}" ] && [ -w "$ACCT/cgroup.procs" ]; then
  parent="$ACCT$(awk -F: '$2 == "cpuacct" {print $3}' /proc/self/cgroup)"
  group="${parent%/}/fb-ci-$$"
  if mkdir "$group" 2>/dev/null && echo $$ >"$group/cgroup.procs"; then :; else
    rmdir "$group" 2>/dev/null
    group=""
  fi
fi

"$@"
status=$?

cpu=""
if [ -n "$group" ]; then
  cpu=" (CPU $(($(cat "$group/cpuacct.usage") / 1000000000)) s)"
  # Whatever the step left running goes back to the caller's group with this shell, so the
  # group can be removed (what was left is the step's own check to find, not this script's).
  while read -r pid; do echo "$pid" >"$parent/cgroup.procs" 2>/dev/null; done <"$group/cgroup.procs"
  rmdir "$group" 2>/dev/null
fi
[ -n "${PHASE_TIMES:-}" ] && echo "$name: $(($(date +%s) - started)) s$cpu" >>"$PHASE_TIMES"
exit $status
