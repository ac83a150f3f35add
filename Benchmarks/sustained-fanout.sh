#!/usr/bin/env bash
# Sustained overload on the real services (issue 31): N active Live Activities of one match, la-coordinator +
# apns-sender + mock-apns (as the demo runs it) on fresh topics and groups. First ONE priority-10 event alone (the
# single-event fan-out time F), then K events of the same match one every T ms — faster than a full fan-out — with
# the priorities of PATTERN (default a wicket, four plain updates, a four: 10,5,5,5,5,10).
#
#   Benchmarks/sustained-fanout.sh [N=100000] [K=6] [T_MS=1000]
#
# Prints, per event of the series: its priority, the pushes that carried it (the mock counts accepted pushes by their
# aps.timestamp, one per event), and its last push after it was produced; then the totals — pushes for the series,
# pushes that showed a device an older state after a newer one (the mock's per-token check), CPU µs per push of
# apns-sender, la-coordinator, mock-apns and PostgreSQL — and the targets: pushes ≤ 2.5 × N, the last event's last
# push within F + 1 s, nothing backwards. Needs the local stack (scripts/stack up).
# Env: BIN_DIR (prebuilt release binaries), MOCK_PORT (22297), PATTERN, APNS_CONNECTIONS (2), SENDERS (1: apns-sender
#      replicas in one group), KILL_SENDER_AFTER_MS (with SENDERS ≥ 2: kill -9 the last replica that long into the
#      series; its partitions move to the others, which re-read its unfinished jobs), and anything the services read
#      (KAFKA_BROKERS for another broker; LA_PLAIN_UPDATE_MAX_HOLD_MS=0 to see the run without the overload rule).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/scripts/env"
N=${1:-100000}
K=${2:-6}
T_MS=${3:-1000}
PATTERN=${PATTERN:-10,5,5,5,5,10}
MOCK_PORT=${MOCK_PORT:-22297}
source "$ROOT/Benchmarks/fanout-common.sh"
build_release la-coordinator apns-sender mock-apns e2e-fanout-bench

WORK=$(mktemp -d /tmp/sustained-fanout.XXXXXX)
PIDS=()
MOCK_PID=""
RUN="sustained-$N-$RANDOM"
MATCH="bench-$RUN"
stop_all() {
    local pid
    for pid in "${PIDS[@]}" $MOCK_PID; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}" $MOCK_PID; do wait "$pid" 2>/dev/null || true; done
}
cleanup() {
    stop_all
    "$BIN_DIR/e2e-fanout-bench" cleanup --match "$MATCH" --prefix "$RUN" >/dev/null 2>&1 || true
    "$BIN_DIR/e2e-fanout-bench" cleanup --match "warm-$MATCH" --prefix "$RUN" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

start_mock
"$BIN_DIR/e2e-fanout-bench" setup --match "$MATCH" --rows "$N" --prefix "$RUN" >"$WORK/setup.out"
"$BIN_DIR/e2e-fanout-bench" setup --match "warm-$MATCH" --rows 1 --prefix "$RUN" >/dev/null
SENDERS=${SENDERS:-1}
SENDER_PIDS=()
for replica in $(seq 1 "$SENDERS"); do start_sender "$RUN" "$replica"; SENDER_PIDS+=("$STARTED_PID"); done
SENDER=${SENDER_PIDS[0]}
start_coordinator "$RUN" 1; COORDINATOR=$STARTED_PID
PIDS=("${SENDER_PIDS[@]}" "$COORDINATOR")
for replica in $(seq 1 "$SENDERS"); do wait_ready $((28200 + replica)) "apns-sender-$replica"; done
wait_ready 28101 la-coordinator-1

# accepted_with TIMESTAMP: pushes the mock accepted carrying that aps.timestamp.
accepted_with() {
    counters | python3 -c 'import json,sys; c=json.load(sys.stdin)["byTimestamp"]; print(c.get(sys.argv[1], {}).get("accepted", 0))' "$1"
}
# wait_for TIMESTAMP COUNT SECONDS: until COUNT pushes carried TIMESTAMP (or the time is up).
wait_for() {
    local deadline=$((SECONDS + $3))
    until [[ "$(accepted_with "$1")" -ge "$2" ]]; do
        [[ $SECONDS -lt $deadline ]] || return 1
        sleep 0.2
    done
}

echo "# sustained fan-out: N=$N, K=$K events one every $T_MS ms (priorities $PATTERN), $SENDERS apns-sender(s), brokers ${KAFKA_BROKERS:-from scripts/env}, $(nproc) cores, load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
# Warm-up: both groups joined, every connection open.
reset_mock
"$BIN_DIR/e2e-fanout-bench" series --match "warm-$MATCH" --prefix "$RUN" --count 1 --interval-ms 0 --priorities 10 >"$WORK/warm.out"
wait_for "$(awk -F'[ =]' '{ print $8 }' "$WORK/warm.out")" 1 60 || { echo "sustained-fanout: the warm-up push never arrived" >&2; exit 1; }

[[ "$SENDERS" -eq 1 ]] || sleep 5  # replicas: let the group's assignment settle

# 1. One event alone: the single-event fan-out time F.
reset_mock
"$BIN_DIR/e2e-fanout-bench" series --match "$MATCH" --prefix "$RUN" --count 1 --interval-ms 0 --priorities 10 --first-seq 1 >"$WORK/single.out"
read -r SINGLE_TS SINGLE_AT < <(awk -F'[ =]' '{ print $8, $10 }' "$WORK/single.out")
wait_for "$SINGLE_TS" "$N" $((60 + N / 1000)) || echo "sustained-fanout: the single event reached $(accepted_with "$SINGLE_TS") of $N" >&2
SINGLE_LAST=$(counters | python3 -c 'import json,sys; print(json.load(sys.stdin)["byTimestamp"][sys.argv[1]]["lastAcceptedAt"])' "$SINGLE_TS")
F_MS=$((SINGLE_LAST - SINGLE_AT))
echo "single event: $N pushes, last push $(awk -v f="$F_MS" 'BEGIN { printf "%.2f", f / 1000 }') s after it was produced (F)"
sleep 3  # the match's fan-out is over: the series starts as a fresh burst

# 2. The series.
reset_mock
LOAD=$(cut -d' ' -f1 /proc/loadavg)
T_SENDER=$(ticks_all "${SENDER_PIDS[@]}"); T_LA=$(ticks "$COORDINATOR"); T_MOCK=$(ticks "$MOCK_PID"); snapshot_named postgres
"$BIN_DIR/e2e-fanout-bench" series --match "$MATCH" --prefix "$RUN" --count "$K" --interval-ms "$T_MS" --priorities "$PATTERN" \
    --first-seq 2 >"$WORK/series.out" &
SERIES=$!
if [[ -n "${KILL_SENDER_AFTER_MS:-}" && "$SENDERS" -ge 2 ]]; then
    sleep "$(awk -v ms="$KILL_SENDER_AFTER_MS" 'BEGIN { printf "%.3f", ms / 1000 }')"
    VICTIM=${SENDER_PIDS[$((SENDERS - 1))]}
    echo "killing apns-sender-$SENDERS (pid $VICTIM, kill -9) $KILL_SENDER_AFTER_MS ms into the series; delivered so far: $(metric $((28200 + SENDERS)) 'apns_sender_targets_total{action="delivered"}')"
    T_VICTIM=$(ticks "$VICTIM")
    kill -9 "$VICTIM"
fi
wait "$SERIES"
LAST_TS=$(tail -1 "$WORK/series.out" | awk -F'[ =]' '{ print $8 }')
wait_for "$LAST_TS" "$N" $((60 + N / 500)) || echo "sustained-fanout: the last event reached $(accepted_with "$LAST_TS") of $N" >&2
sleep 2  # anything still on its way arrives now (and would be counted)
C=$(counters)
D_SENDER=$(($(ticks_all "${SENDER_PIDS[@]}") + ${T_VICTIM:-0} - T_SENDER)); D_LA=$(($(ticks "$COORDINATOR") - T_LA)); D_MOCK=$(($(ticks "$MOCK_PID") - T_MOCK))
D_PG=$(delta_named postgres)
TOTAL=$(echo "$C" | field accepted)
BACKWARDS=$(echo "$C" | field backwardsPushes)
printf "%-6s %-9s %-9s %10s %14s\n" "event" "priority" "produced" "pushes" "last_push_s"
FIRST_AT=$(head -1 "$WORK/series.out" | awk -F'[ =]' '{ print $10 }')
LAST_EVENT_S=""
while read -r line; do
    INDEX=$(echo "$line" | awk -F'[ =]' '{ print $2 }'); PRIORITY=$(echo "$line" | awk -F'[ =]' '{ print $6 }')
    TS=$(echo "$line" | awk -F'[ =]' '{ print $8 }'); AT=$(echo "$line" | awk -F'[ =]' '{ print $10 }')
    read -r PUSHES LAST < <(echo "$C" | python3 -c '
import json, sys
entry = json.load(sys.stdin)["byTimestamp"].get(sys.argv[1])
print(entry["accepted"], entry["lastAcceptedAt"]) if entry else print(0, 0)' "$TS")
    LAST_S="-"
    [[ "$PUSHES" -eq 0 ]] || LAST_S=$(awk -v l="$LAST" -v a="$AT" 'BEGIN { printf "%.2f", (l - a) / 1000 }')
    printf "%-6s %-9s %-9s %10s %14s\n" "$INDEX" "$PRIORITY" "+$(awk -v a="$AT" -v f="$FIRST_AT" 'BEGIN { printf "%.2f", (a - f) / 1000 }')s" "$PUSHES" "$LAST_S"
    LAST_EVENT_S=$LAST_S
done <"$WORK/series.out"
echo "series: $TOTAL pushes for $K events to $N devices; backwards: $BACKWARDS (an event's pushes above N: devices sent that state twice, a redelivery); load at start $LOAD, now $(cut -d' ' -f1 /proc/loadavg)"
echo "CPU µs per push: apns-sender $(per_push "$D_SENDER" "$TOTAL"), la-coordinator $(per_push "$D_LA" "$TOTAL"), mock-apns $(per_push "$D_MOCK" "$TOTAL"), postgres $(per_push "$D_PG" "$TOTAL"); peak RSS apns-sender $(peak_mb "$SENDER") MB, la-coordinator $(peak_mb "$COORDINATOR") MB"
echo "superseded: apns-sender $(metric 28201 'apns_sender_superseded_total{priority="5"}') (priority 5) $(metric 28201 'apns_sender_superseded_total{priority="10"}') (priority 10) targets; la-coordinator held $(metric 28101 la_updates_held_total), superseded $(metric 28101 'la_updates_superseded_total{priority="5"}') plain updates, released $(metric 28101 la_update_hold_seconds_count) after $(curl -s http://127.0.0.1:28101/metrics | awk '$1 == "la_update_hold_seconds_sum" { printf "%.1f", $2 }') s held in all"
BUDGET=$((N * 5 / 2))
BOUND=$(awk -v f="$F_MS" 'BEGIN { printf "%.2f", f / 1000 + 1 }')
awk -v t="$TOTAL" -v b="$BUDGET" 'BEGIN { exit !(t <= b) }' && P1=met || P1=MISSED
awk -v l="${LAST_EVENT_S/-/999}" -v b="$BOUND" 'BEGIN { exit !(l <= b) }' && P2=met || P2=MISSED
[[ "$BACKWARDS" -eq 0 ]] && P3=met || P3=MISSED
echo "targets: pushes $TOTAL <= $BUDGET: $P1; last event's last push ${LAST_EVENT_S} s <= F + 1 s = $BOUND s: $P2; nothing backwards: $P3"
