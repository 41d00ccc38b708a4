#!/usr/bin/env bash
# CI's CPU timeline: every 10 s, the processes that used the most CPU in those 10 s, one line per
# sample in $1 ("HH:MM:SS comm/pid:ticks ...", 100 ticks = one core-second). Process accounting
# says which command used the CPU over the whole run; this says when, so a slow lane can be put
# beside the test it was running. In three of twelve CI runs the VM lane's tincd and boringtun
# burned ~190 CPU-s where they usually burn ~3 (suspected: tinc's multicast flooding, since
# removed): when a VM node's (fb-vm-*) network daemon uses more than 30 % of a core over a sample,
# its namespace's interface counters, routes and sockets, and its open log files (tincd dumps its
# graph there on SIGUSR2), go to $2, once per namespace and daemon, at most twelve times. Only VM
# nodes: the local fleets' daemons carry the benchmarks' timed traffic, which a dump would disturb.
# Runs until killed. Shell, not TypeScript beside platform/pid.ts's readPidStat: it starts before
# `make test` has installed node_modules, so that setup is on the timeline too.
set -uo pipefail
timeline=${1:?usage: cpu-timeline.sh TIMELINE-FILE DUMP-DIR}
dumps=${2:?usage: cpu-timeline.sh TIMELINE-FILE DUMP-DIR}
interval=10
storm_ticks=$((interval * 30))
declare -A dumped=()

# "pid comm ticks" for every process; comm may hold spaces, so it is read up to the last ')'.
sample() {
  for stat in /proc/[0-9]*/stat; do
    { read -r line <"$stat"; } 2>/dev/null || continue
    local pid=${line%% *} rest=${line##*) } comm=${line#*(}
    comm=${comm%)*}
    # shellcheck disable=SC2086
    set -- $rest
    echo "$pid ${comm// /_} $((${12} + ${13}))"
  done
}

dump() {
  local pid=$1 comm=$2 ticks=$3 namespace fd file
  namespace=$(ip netns identify "$pid" 2>/dev/null)
  [[ $namespace == fb-vm-* ]] || return
  file="$dumps/$(date +%H%M%S)-$namespace-$comm.txt"
  [ -n "${dumped[$namespace-$comm]:-}" ] || [ ${#dumped[@]} -ge 12 ] && return
  dumped[$namespace-$comm]=1
  {
    echo "# $comm (pid $pid) used $ticks ticks in ${interval} s; its command line:"
    tr '\0' ' ' <"/proc/$pid/cmdline"
    echo
    # Counters twice, 2 s apart: their difference is the traffic while the daemon was busy.
    for what in "ip -s -o link" "sleep 2" "ip -s -o link" "ip route" "ss -tuanp"; do
      echo "## $what"
      # shellcheck disable=SC2086
      nsenter -t "$pid" -n $what 2>&1
    done
  } >"$file" 2>&1
  # tinc 1.0 writes its nodes, edges and subnets to its log on SIGUSR2, its connections on SIGUSR1.
  [ "$comm" = tincd ] && kill -USR2 "$pid" 2>/dev/null && kill -USR1 "$pid" 2>/dev/null && sleep 1
  for fd in /proc/"$pid"/fd/*; do
    case $(readlink "$fd" 2>/dev/null) in
      *.log) { echo "## $(readlink "$fd"), its last 400 lines"; tail -n 400 "$fd"; } >>"$file" 2>&1 ;;
    esac
  done
}

mkdir -p "$dumps"
# Stopped between samples: its sleep goes with it.
trap 'kill "$napping" 2>/dev/null; exit 0' TERM INT
napping=""
declare -A before
while :; do
  declare -A now=()
  rows=()
  while read -r pid comm ticks; do
    now[$pid]=$ticks
    used=$((ticks - ${before[$pid]:-$ticks}))
    [ "$used" -gt 0 ] && rows+=("$used $comm $pid")
    if [ "$used" -ge "$storm_ticks" ] && { [ "$comm" = tincd ] || [ "$comm" = boringtun-cli ]; }; then
      dump "$pid" "$comm" "$used"
    fi
  done < <(sample)
  before=()
  for pid in "${!now[@]}"; do before[$pid]=${now[$pid]}; done
  if [ ${#rows[@]} -gt 0 ]; then
    echo "$(date +%T) $(printf '%s\n' "${rows[@]}" | sort -rn | head -n 8 | awk '{ printf "%s/%s:%s ", $2, $3, $1 }')" >>"$timeline"
  fi
  sleep "$interval" &
  napping=$!
  wait "$napping"
done
