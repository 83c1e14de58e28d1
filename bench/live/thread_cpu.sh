#!/bin/bash
# Per-thread CPU of every `schedhost serve` running, for reading beside a bench-live run:
# every 200 ms it samples each thread's name (serve names them sh-pods, sh-bind-writes, ...),
# user and system CPU in clock ticks (/proc/PID/task/TID/stat; 100 a second here) and its
# voluntary and involuntary context switches, and rewrites OUT with the last sample of each
# thread: "PID:TID:NAME user system voluntary involuntary". Stop it with kill when the run ends.
#   bench/live/thread_cpu.sh /tmp/threads.txt & sampler=$!
#   build-bench/bin/schedhost-bench-live --workload SchedulingBasic/5000Nodes_5000Pods \
#     --scheduler schedhost --repeat 1
#   kill $sampler
set -u
out=$1
declare -A last
while true; do
  for p in $(pgrep -f 'bin/schedhost serve'); do
    for t in /proc/"$p"/task/*; do
      tid=${t##*/}
      comm=$(cat "$t"/comm 2>/dev/null) || continue
      stat=$(cat "$t"/stat 2>/dev/null) || continue
      read -r -a fields <<<"${stat#*) }"  # fields after the name: state is [0], utime [11]
      switches=$(awk '/^voluntary_ctxt/{v=$2} /^nonvoluntary_ctxt/{n=$2} END{print v, n}' \
        "$t"/status 2>/dev/null)
      last["$p:$tid:$comm"]="${fields[11]} ${fields[12]} $switches"
    done
  done
  for key in "${!last[@]}"; do echo "$key ${last[$key]}"; done | sort >"$out.tmp"
  mv "$out.tmp" "$out"
  sleep 0.2
done
