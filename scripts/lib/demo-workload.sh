# shellcheck shell=bash
# The demo's scripted workload and its summary, sourced by scripts/demo. The pauses pace a
# story a person watches; they synchronise nothing: the demo's check waits on the events.

demo_say() { printf '%s workload: %s\n' "$(date +%H:%M:%S)" "$*"; }

# Random bytes, so that every block is allocated (a file of zeros could be sparse).
demo_write() { head -c "$2" /dev/urandom >>"$1"; }

# Waits until the daemon in the view answers on its socket, for up to $3 seconds.
demo_wait_until_watching() {
    local bin="$1" socket="$2" seconds="$3" tries
    for ((tries = 0; tries < seconds * 10; tries++)); do
        if "$bin/quotawatch" status --socket "$socket" --depth 0 --timeout 5 >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.1
    done
    echo "error: nothing answered on $socket within $seconds s" >&2
    return 1
}

# demo_workload BIN SANDBOX SOCKET: the story, about 25 s once the view is up.
demo_workload() {
    local bin="$1" root="$2" socket="$3" i
    local caches="$root/Library/Caches"
    demo_wait_until_watching "$bin" "$socket" 120
    demo_say "the first start of app version 1.1 ran every cleaner once (WebKit's cache trimmed to 3 MB)"
    sleep 2

    demo_say "the feed cache grows past its 8 MB quota; evict brings it back to 80 %"
    for i in 1 2 3 4 5 6 7 8; do
        demo_write "$caches/com.example.feed/story-$i.bin" 250000
        sleep 0.25
    done
    demo_say "the maps cache grows past its 6 MB quota"
    for i in 1 2 3 4 5; do
        demo_write "$caches/com.example.maps/tile-pack-$i.bin" 300000
        sleep 0.25
    done
    sleep 2

    demo_say "a download finishes: written to tmp/, then renamed into the video cache"
    local download="$root/tmp/CFNetworkDownload_Dm0F1n.tmp"
    for i in 1 2 3 4; do
        demo_write "$download" 200000
        sleep 0.2
    done
    mv -- "$download" "$caches/com.example.video/episode-12.mp4"

    demo_say "another download is abandoned halfway: a leftover once idle for 3 s, then removed"
    local abandoned="$root/tmp/CFNetworkDownload_Ab4nd0.tmp"
    for i in 1 2 3; do
        demo_write "$abandoned" 500000
        sleep 0.2
    done
    sleep 5

    demo_say "the user exports a 20 MB video: the disk goes to Warning and every quota shrinks to 70 %"
    demo_write "$root/Documents/Exports/holiday.mov" 20000000
    sleep 5
    demo_say "the export is deleted: the disk is back to Normal"
    rm -f -- "$root/Documents/Exports/holiday.mov"
    sleep 3
    demo_say "done"
}

# The kinds among $3.. that no line of the event log $1 names (its second field) after
# waiting up to $2 seconds; empty when all came.
demo_wait_for_events() {
    local log="$1" seconds="$2" tries kind missing
    shift 2
    for ((tries = 0; tries <= seconds * 10; tries++)); do
        missing=""
        for kind in "$@"; do
            if ! awk -v kind="$kind" '$2 == kind { found = 1 } END { exit !found }' "$log"; then
                missing+="${missing:+ }$kind"
            fi
        done
        if [[ -z "$missing" ]]; then return 0; fi
        sleep 0.1
    done
    echo "$missing"
}

# demo_summary EVENT_LOG SANDBOX FINAL_STATUS LIVE_TOTAL: what happened, and the live total
# against du's.
demo_summary() {
    local log="$1" root="$2" status="$3" live_total="$4" du_total
    echo "events seen:"
    awk '{ count[$2]++ } END { for (kind in count) printf "  %-15s %d\n", kind, count[kind] }' "$log" | sort
    echo
    echo "the last cleanup runs:"
    awk '$2 == "cleanup"' "$log" | tail -n 3 | sed 's/^/  /'
    echo
    echo "the tallies at the end (quotawatch status --sync --depth 2):"
    sed 's/^/  /' "$status"
    echo
    du_total="$(du -s -B1 -- "$root" | cut -f1)"
    echo "allocated bytes, live from inotify: $live_total; du -s -B1: $du_total"
    if [[ "$live_total" != "$du_total" ]]; then
        echo "error: the live total differs from du's" >&2
        return 1
    fi
}
