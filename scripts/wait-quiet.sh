#!/usr/bin/env bash
# Before the steps that judge time: waits (up to 60 s) until the host is quiet, that is no `fb-`
# namespace is left by an earlier step and the CPUs were less than 15 % busy over 2 s, and says
# what was still busy if it never is. It does not fail: the steps after it judge their own
# figures, and their verdicts say when the host was busy; this line says why.
set -uo pipefail
busy_percent() {
  local a b
  read -r -a a < <(grep '^cpu ' /proc/stat)
  sleep 2
  read -r -a b < <(grep '^cpu ' /proc/stat)
  local total=0 idle i
  for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
  idle=$((b[4] - a[4] + b[5] - a[5]))
  echo $((100 * (total - idle) / (total > 0 ? total : 1)))
}
deadline=$((SECONDS + 60))
while :; do
  namespaces=$(ip netns list 2>/dev/null | awk '$1 ~ /^fb-/ {print $1}' | tr '\n' ' ')
  busy=$(busy_percent)
  if [ -z "$namespaces" ] && [ "$busy" -lt 15 ]; then
    echo "quiet: host ${busy} % busy, no fb- namespace"
    exit 0
  fi
  if [ $SECONDS -ge $deadline ]; then
    echo "not quiet after 60 s: host ${busy} % busy; fb- namespaces: ${namespaces:-none}; busiest processes:"
    ps -eo pid,pcpu,etimes,comm --sort=-pcpu | head -6
    exit 0
  fi
done
