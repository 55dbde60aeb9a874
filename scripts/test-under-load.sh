#!/usr/bin/env bash
# Runs the README's test command N times in a row (default 3) while two CPU hogs keep both cores
# busy, as on a shared CI machine or a laptop doing other work; prints each run's result and wall
# time, and stops the hogs however it ends. The suite must pass every time (issue 46).
#   scripts/test-under-load.sh [runs] [hogs]
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
hogs="${2:-2}"
pids=()
stop_hogs() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap stop_hogs EXIT INT TERM
for _ in $(seq 1 "$hogs"); do
  # A busy loop in its own process: the scheduler shares the cores with it as with any other work.
  node -e 'for (;;) {}' &
  pids+=("$!")
done
failed=0
for i in $(seq 1 "$runs"); do
  log="$(mktemp -t jobstorm-under-load-XXXXXX.log)"
  start=$(date +%s)
  if npm test >"$log" 2>&1; then result=passed; else result=FAILED; failed=$((failed + 1)); fi
  end=$(date +%s)
  summary="$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ +(Test Files|Tests) ' | tr -s ' ' | paste -sd';' -)"
  echo "run $i of $runs under $hogs CPU hogs: $result in $((end - start)) s (${summary:-no vitest summary}); log: $log"
done
echo "$((runs - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
