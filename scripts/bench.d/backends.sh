#!/bin/bash
# Start-up to ready and kernel slab growth, inotify against fanotify, rounds alternating.
# Usage (as root): scripts/bench.d/backends.sh BIN TREE [ROUNDS]
#   BIN   a quotawatch binary (release: .build/release/quotawatch)
#   TREE  e.g. quotawatch-treegen grid DEST --dirs 20000 --files-per-dir 10 --seed 1
# Slab is /proc/meminfo's, read just before the start and at `ready`: other processes move
# it too, so read it over several rounds.
set -euo pipefail
bin=$1
tree=$2
rounds=${3:-3}
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
slab() { awk '/^Slab:/ {print $2}' /proc/meminfo; }
for round in $(seq 1 "$rounds"); do
    for backend in inotify fanotify; do
        du -s "$tree" >/dev/null # the same warm caches for both
        before=$(slab)
        "$bin" run "$tree" --backend "$backend" --socket "$work/$backend.sock" --events jsonl --no-history \
            >"$work/$backend.out" 2>"$work/$backend.err" &
        pid=$!
        until grep -q '"ready"' "$work/$backend.out" 2>/dev/null; do sleep 0.05; done
        after=$(slab)
        seconds=$(grep -o '"seconds":[0-9.]*' "$work/$backend.out" | cut -d: -f2)
        cpu=$(awk '{print ($14 + $15) / 100}' "/proc/$pid/stat")
        echo "round $round $backend ready_seconds=$seconds cpu_seconds=$cpu slab_delta_kib=$((after - before))"
        kill -TERM "$pid"
        wait "$pid" || true
    done
done
