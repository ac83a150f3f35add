#!/usr/bin/env bash
# End-to-end fan-out on the real services (issue 18): for each N, N active Live Activities of a fresh match
# (real schema, generate_series; 3 devices per user), la-coordinator + apns-sender + mock-apns (as the demo
# runs it: payload validation and recording on) with fresh topics and consumer groups, ONE priority-10
# MatchBusEvent produced to the events topic; then apns-bench and h2load against the same mock.
#
#   Benchmarks/e2e-fanout.sh [N ...]            (default: 10000 100000)
#
# Prints per N (and channel share): event → first / last push accepted (mock clock), event → broadcast accepted,
# APNs requests for the event (token pushes + broadcasts), pushes/s, CPU µs per push of apns-sender,
# la-coordinator, mock-apns, the PostgreSQL backends and the broker (from /proc, utime+stime), peak RSS
# (VmHWM) of apns-sender and la-coordinator, the exactly-once check (every token once, no repeats) and the
# load; then apns-bench's and h2load's rates and CPU against the same mock, and the ratios the issue's
# targets are stated in. Needs the local stack (scripts/stack up) and h2load (nghttp2-client).
# Env: BIN_DIR (prebuilt release binaries), MOCK_PORT (22297), BENCH_N (apns-bench/h2load requests, 200000), BENCH_RUNS (3: batch runs of apns-bench, the median is the ratio's base),
#      REPLICAS (1: replicas of apns-sender and of la-coordinator, each pair of kinds one consumer group; CPU
#      and RSS columns then sum / take the largest over the replicas), APNS_CONNECTIONS (2),
#      APNS_SENDER_MAX_JOBS (4), CHANNEL_SHARES ("0": for each N a run per share S of channel activities — a
#      broadcast channel for the match on the mock's management port, S of the rows on it with the mock counting
#      that many subscribers, the rest token rows; "0.8 0" compares broadcast with tokens only), KILL_SENDER_AT_MS
#      (with REPLICAS=1: kill -9 apns-sender that long after the event and start it again at once; the run then
#      reports the fan-out's duplicates, each by its first copy: on the wire at the kill or answered before it),
#      and anything the services read.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/scripts/env"
SIZES=("$@")
[[ ${#SIZES[@]} -gt 0 ]] || SIZES=(10000 100000)
MOCK_PORT=${MOCK_PORT:-22297}
BENCH_N=${BENCH_N:-200000}
CONNECTIONS=${APNS_CONNECTIONS:-2}
REPLICAS=${REPLICAS:-1}
read -r -a SHARES <<<"${CHANNEL_SHARES:-0}"
MANAGE_PORT=$((MOCK_PORT + 1))
command -v h2load >/dev/null || { echo "e2e-fanout: h2load missing: apt-get install nghttp2-client" >&2; exit 1; }

source "$ROOT/Benchmarks/fanout-common.sh"
build_release la-coordinator apns-sender mock-apns apns-bench e2e-fanout-bench

WORK=$(mktemp -d /tmp/e2e-fanout.XXXXXX)
PIDS=()
stop_all() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done; PIDS=(); }
MOCK_PID=""
trap 'stop_all; [[ -z "$MOCK_PID" ]] || kill "$MOCK_PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT

start_mock
BROKER=$(pgrep -f "tansu" | head -1 || true)
[[ -n "$BROKER" ]] || echo "e2e-fanout: no tansu process found; the broker's CPU is reported as 0" >&2

echo "# e2e fan-out, $(nproc) cores, $REPLICAS replica(s) of apns-sender and la-coordinator, load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-9s %5s %9s %9s %9s %9s %8s | %8s %8s %8s %8s %8s | %8s %8s | %s\n" "N" "share" "first_s" "last_s" "bcast_s" "pushes/s" "requests" \
    "sender" "la-coord" "mock" "postgres" "broker" "sndr_MB" "la_MB" "exactly-once"
RUNS=()
for N in "${SIZES[@]}"; do for SHARE in "${SHARES[@]}"; do RUNS+=("$N:$SHARE"); done; done
E2E_RATES=()
SENDER_COSTS=()
MOCK_COSTS=()
# The mock must not become the bottleneck again (issue 42: 44 µs per request at 3e1e455, 51–70 µs at 97913b7 from
# per-push bookkeeping, 40–46 µs after, by load): its CPU per request in the fan-out is checked against this budget.
MOCK_BUDGET_US=${MOCK_BUDGET_US:-50}
for SPEC in "${RUNS[@]}"; do
    N=${SPEC%%:*}
    SHARE=${SPEC##*:}
    RUN="e2e-$N-$RANDOM"
    MATCH="bench-$RUN"
    CHANNEL_ARGS=()
    if awk -v s="$SHARE" 'BEGIN { exit !(s > 0) }'; then
        CHANNEL_ARGS=(--channel-share "$SHARE" --manage-port "$MANAGE_PORT" --ca "$CA" --key "$KEY")
    fi
    "$BIN_DIR/e2e-fanout-bench" setup --match "$MATCH" --rows "$N" --prefix "$RUN" "${CHANNEL_ARGS[@]}" >"$WORK/setup.out"
    TOKEN_ROWS=$(awk -F= '$1 == "token_rows" { print $2 }' "$WORK/setup.out")
    CHANNEL_ROWS=$(awk -F= '$1 == "channel_rows" { print $2 }' "$WORK/setup.out")
    CHANNEL_ID=$(awk -F= '$1 == "channel_id" { print substr($0, index($0, "=") + 1) }' "$WORK/setup.out")
    if [[ -n "$CHANNEL_ID" ]]; then
        # The mock counts the channel's subscribers (one copy each per broadcast) instead of listing them.
        curl -sk --http2 -X POST "https://127.0.0.1:$MOCK_PORT/mock/channels/subscribers" \
            -d "{\"channelId\":\"$CHANNEL_ID\",\"count\":$CHANNEL_ROWS}" >/dev/null
    fi
    "$BIN_DIR/e2e-fanout-bench" setup --match "warm-$MATCH" --rows 1 --prefix "$RUN" >/dev/null
    SENDERS=(); COORDINATORS=()
    for replica in $(seq 1 "$REPLICAS"); do
        start_sender "$RUN" "$replica"; SENDERS+=("$STARTED_PID")
        start_coordinator "$RUN" "$replica"; COORDINATORS+=("$STARTED_PID")
    done
    PIDS=("${SENDERS[@]}" "${COORDINATORS[@]}")
    for replica in $(seq 1 "$REPLICAS"); do
        wait_ready $((28200 + replica)) "apns-sender-$replica"
        wait_ready $((28100 + replica)) "la-coordinator-$replica"
    done
    # Warm-up: one event for a one-follower match, and wait until its push is accepted, so that both
    # consumer groups have joined and every connection is open before the measured event.
    reset_mock
    "$BIN_DIR/e2e-fanout-bench" fire --match "warm-$MATCH" --prefix "$RUN" >/dev/null
    WARM_DEADLINE=$((SECONDS + 60))
    until [[ "$(counters | field accepted)" -ge 1 ]]; do
        [[ $SECONDS -lt $WARM_DEADLINE ]] || { echo "e2e-fanout: the warm-up push never arrived" >&2; exit 1; }
        sleep 0.2
    done
    [[ "$REPLICAS" -eq 1 ]] || sleep 5  # replicas: let the groups' assignments settle as well
    reset_mock
    LOAD=$(cut -d' ' -f1 /proc/loadavg)
    T_SENDER=$(ticks_all "${SENDERS[@]}"); T_LA=$(ticks_all "${COORDINATORS[@]}"); T_MOCK=$(ticks "$MOCK_PID")
    snapshot_named postgres; T_BROKER=$([[ -n "$BROKER" ]] && ticks "$BROKER" || echo 0)
    # The clock starts when the broker acknowledged the event (the event is on the topic), not when the tool
    # started (its producer's bootstrap is not part of the pipeline).
    FIRED=$("$BIN_DIR/e2e-fanout-bench" fire --match "$MATCH" --prefix "$RUN" | awk -F= '/acknowledged_at_ms/ { print $2 }')
    KILLED_AT=""
    if [[ -n "${KILL_SENDER_AT_MS:-}" ]]; then
        # A crash in the fan-out (issue 42): kill -9 apns-sender that long after the event, start it again at once
        # (same group and port); the run then ends when every token has a push, and its repeats are classified.
        WAIT_MS=$((FIRED + KILL_SENDER_AT_MS - $(date +%s%3N)))
        [[ $WAIT_MS -le 0 ]] || sleep "$(awk -v ms="$WAIT_MS" 'BEGIN { printf "%.3f", ms / 1000 }')"
        kill -9 "${SENDERS[0]}"; KILLED_AT=$(date +%s%3N); wait "${SENDERS[0]}" 2>/dev/null || true
        echo "  killed apns-sender (kill -9) $((KILLED_AT - FIRED)) ms after the event, $(counters | field distinctTokens) tokens had their push; restarting it"
        start_sender "$RUN" 1; SENDERS[0]=$STARTED_PID; PIDS=("${SENDERS[@]}" "${COORDINATORS[@]}")
    fi
    DEADLINE=$((SECONDS + 60 + N / 1000))
    while true; do
        C=$(counters)
        ACCEPTED=$(echo "$C" | field distinctTokens); BROADCASTS=$(echo "$C" | field broadcastsAccepted)
        [[ "$ACCEPTED" -ge "$TOKEN_ROWS" && ( -z "$CHANNEL_ID" || "$BROADCASTS" -ge 1 ) || $SECONDS -ge $DEADLINE ]] && break
        sleep 0.2
    done
    sleep 1  # a repeat, if any, would arrive now
    C=$(counters)
    D_SENDER=$(($(ticks_all "${SENDERS[@]}") - T_SENDER)); D_LA=$(($(ticks_all "${COORDINATORS[@]}") - T_LA))
    D_MOCK=$(($(ticks "$MOCK_PID") - T_MOCK))
    D_PG=$(delta_named postgres); D_BROKER=0
    [[ -z "$BROKER" ]] || D_BROKER=$(($(ticks "$BROKER") - T_BROKER))
    ACCEPTED=$(echo "$C" | field accepted); DISTINCT=$(echo "$C" | field distinctTokens); REPEATED=$(echo "$C" | field repeatedPushes)
    FIRST=$(echo "$C" | field firstAcceptedAt); LAST=$(echo "$C" | field lastAcceptedAt)
    FIRST_S=$(awk -v a="$FIRST" -v f="$FIRED" 'BEGIN { printf "%.2f", (a - f) / 1000 }')
    LAST_S=$(awk -v a="$LAST" -v f="$FIRED" 'BEGIN { printf "%.2f", (a - f) / 1000 }')
    RATE=$(awk -v n="$ACCEPTED" -v a="$FIRST" -v l="$LAST" 'BEGIN { printf "%.0f", (l > a ? n / ((l - a) / 1000) : 0) }')
    BROADCASTS=$(echo "$C" | field broadcastsAccepted); COPIES=$(echo "$C" | field broadcastCopies)
    REPEATED_B=$(echo "$C" | field repeatedBroadcasts)
    BCAST_S="-"
    [[ -z "$CHANNEL_ID" ]] || BCAST_S=$(awk -v a="$(echo "$C" | field firstBroadcastAcceptedAt)" -v f="$FIRED" 'BEGIN { printf "%.2f", (a - f) / 1000 }')
    CHECK="ok"
    if [[ -n "$KILLED_AT" ]]; then
        # Through a crash: every token once at least; the repeats are the crash's cost, classified below.
        [[ "$DISTINCT" -eq "$TOKEN_ROWS" ]] || CHECK="FAILED (distinct $DISTINCT of $TOKEN_ROWS)"
        [[ "$CHECK" != ok ]] || CHECK="ok through the kill ($REPEATED repeated)"
    else
        [[ "$ACCEPTED" -eq "$TOKEN_ROWS" && "$DISTINCT" -eq "$TOKEN_ROWS" && "$REPEATED" -eq 0 ]] \
            || CHECK="FAILED (accepted $ACCEPTED of $TOKEN_ROWS, distinct $DISTINCT, repeated $REPEATED)"
    fi
    if [[ -n "$CHANNEL_ID" ]]; then
        [[ "$BROADCASTS" -eq 1 && "$COPIES" -eq "$CHANNEL_ROWS" && "$REPEATED_B" -eq 0 ]] \
            || CHECK="$CHECK; broadcast FAILED ($BROADCASTS accepted, $COPIES copies of $CHANNEL_ROWS, $REPEATED_B repeated)"
    fi
    SENDER_US=$(per_push "$D_SENDER" "$ACCEPTED")
    printf "%-9s %5s %9s %9s %9s %9s %8s | %8s %8s %8s %8s %8s | %8s %8s | %s (load %s)\n" "$N" "$SHARE" "$FIRST_S" "$LAST_S" "$BCAST_S" "$RATE" \
        "$((ACCEPTED + BROADCASTS))" \
        "$SENDER_US" "$(per_push "$D_LA" "$ACCEPTED")" "$(per_push "$D_MOCK" "$ACCEPTED")" "$(per_push "$D_PG" "$ACCEPTED")" \
        "$(per_push "$D_BROKER" "$ACCEPTED")" "$(peak_mb_all "${SENDERS[@]}")" "$(peak_mb_all "${COORDINATORS[@]}")" "$CHECK" "$LOAD"
    E2E_RATES+=("$RATE"); SENDER_COSTS+=("$SENDER_US"); MOCK_COSTS+=("$(per_push "$D_MOCK" "$ACCEPTED")")
    if [[ -n "$KILLED_AT" ]]; then
        # Each repeat by where its first copy came from: accepted after the kill (requests already on the wire, which
        # the mock read after the sender died) or before it (answered work the restarted sender sent again).
        curl -sk --http2 "https://127.0.0.1:$MOCK_PORT/mock/repeats" >"$WORK/repeats.json"
        python3 - "$WORK/repeats.json" "$KILLED_AT" "$N" <<'PY'
import json, sys
repeats, killed, n = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
wire = [r for r in repeats if r["first"]["receivedAt"] >= killed]
before = [r for r in repeats if r["first"]["receivedAt"] < killed]
same = sum(1 for r in repeats if r["first"]["apnsID"] == r["again"]["apnsID"])
lags = sorted(killed - r["first"]["receivedAt"] for r in before)
def q(p): return lags[min(len(lags) - 1, int(p * len(lags)))] if lags else 0
print(f"  duplicates through the kill: {len(repeats)} = {100 * len(repeats) / n:.3f} % of {n} (target <= 0.1 %); same apns-id {same}; "
      f"first copy on the wire at the kill {len(wire)}, answered before it {len(before)} (first copy p50 {q(0.5)} ms, max {q(1.0) if lags else 0} ms before the kill)")
PY
    fi
    # The delivery record (issue 38): la-coordinator's recorder folds apns-sender's outcomes behind the sends. Wait
    # until every accepted push is in push_deliveries; report when, and la-coordinator's and PostgreSQL's CPU for the
    # fan-out and the record together (the columns above stop at the last push).
    RECORD_DEADLINE=$((SECONDS + 120 + N / 2000))
    RECORDED=0
    while [[ $SECONDS -lt $RECORD_DEADLINE ]]; do
        RECORDED=$(psql "$DATABASE_URL" -Atc "SELECT coalesce(sum(accepted), 0) FROM push_deliveries WHERE match_id = '$MATCH'" 2>/dev/null || echo 0)
        [[ "$RECORDED" -ge "$([[ -n "$KILLED_AT" ]] && echo "$DISTINCT" || echo "$ACCEPTED")" ]] && break
        sleep 0.5
    done
    RECORDED_AT=$(date +%s%3N)
    D_LA_ALL=$(($(ticks_all "${COORDINATORS[@]}") - T_LA)); D_PG_ALL=$(delta_named postgres)
    ROWS=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM push_deliveries WHERE match_id = '$MATCH'" 2>/dev/null || echo 0)
    printf "  record: %s of %s accepted pushes in %s rows, complete %s s after the event (%s s after the last push); " \
        "$RECORDED" "$ACCEPTED" "$ROWS" "$(awk -v r="$RECORDED_AT" -v f="$FIRED" 'BEGIN { printf "%.2f", (r - f) / 1000 }')" \
        "$(awk -v r="$RECORDED_AT" -v l="$LAST" 'BEGIN { printf "%.2f", (r - l) / 1000 }')"
    printf "fan-out + record CPU per push: la-coordinator %s µs, postgres %s µs\n" "$(per_push "$D_LA_ALL" "$ACCEPTED")" "$(per_push "$D_PG_ALL" "$ACCEPTED")"
    if [[ "$REPLICAS" -gt 1 ]]; then
        # Who did the work: targets delivered per apns-sender, targets fanned out per la-coordinator (one event
        # is one match's: one la-coordinator fans it out; its jobs spread over the senders by partition).
        SPLIT_S=""; SPLIT_L=""
        for replica in $(seq 1 "$REPLICAS"); do
            SPLIT_S+=" $(metric $((28200 + replica)) 'apns_sender_targets_total{action="delivered"}')"
            SPLIT_L+=" $(metric $((28100 + replica)) 'la_targets_total')"
        done
        echo "  split over the replicas: apns-sender delivered${SPLIT_S}; la-coordinator fanned out${SPLIT_L} (warm-up included)"
    fi
    stop_all
    "$BIN_DIR/e2e-fanout-bench" cleanup --match "$MATCH" --prefix "$RUN" >/dev/null
    "$BIN_DIR/e2e-fanout-bench" cleanup --match "warm-$MATCH" --prefix "$RUN" >/dev/null 2>&1 || true
done
echo "  (CPU columns: µs per push accepted, utime+stime from /proc; postgres: every process named postgres, backends that"
echo "   exited during the run excluded)"

# BENCH_RUNS=0: the end-to-end runs only (a kill run's figures need no ratio).
[[ "${BENCH_RUNS:-3}" -gt 0 ]] || exit 0
# The same mock, the APNs client alone and h2load, for the ratios.
# run_bench LABEL ARGS…: apns-bench against the mock; sets BENCH_RATE, BENCH_US, MOCK_BENCH_US.
run_bench() {
    reset_mock
    local t_mock bench bench_ticks=0
    t_mock=$(ticks "$MOCK_PID")
    "$BIN_DIR/apns-bench" --port "$MOCK_PORT" --ca "$CA" --key "$KEY" -n "$BENCH_N" -c "$CONNECTIONS" -m 1000 "$@" >"$WORK/bench.out" &
    bench=$!
    while kill -0 "$bench" 2>/dev/null; do bench_ticks=$(ticks "$bench"); sleep 0.05; done
    wait "$bench" || true
    BENCH_RATE=$(awk '/^RESULT/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "rate") print kv[2] } }' "$WORK/bench.out")
    # apns-bench first sends min(N/10, 20,000) warm-up pushes (Benchmarks/APNsBench/main.swift): its CPU and the mock's
    # cover those too, so both are divided by every push sent (before 2026-12-07 by N alone: ~10 % high, flattering the
    # apns-sender / apns-bench ratio).
    local warmup=$((BENCH_N / 10 < 20000 ? BENCH_N / 10 : 20000))
    BENCH_US=$(per_push "$bench_ticks" "$((BENCH_N + warmup))")
    MOCK_BENCH_US=$(per_push $(($(ticks "$MOCK_PID") - t_mock)) "$((BENCH_N + warmup))")
}
# One push per call (the client's single-push API), then whole jobs through the batch API as apns-sender
# sends them (1,000 pushes per call, as many calls in flight as apns-sender runs jobs): the ratio's base.
run_bench
echo "# same mock: apns-bench one push per call ${BENCH_RATE:-?} pushes/s at ${BENCH_US} µs CPU per push (mock ${MOCK_BENCH_US} µs/request)"
# apns-bench's CPU per push moves by ±15 % between identical runs here (13.7–19.4 µs in one sitting): the ratio's base is
# the median of BENCH_RUNS runs, each printed.
BENCH_RUNS=${BENCH_RUNS:-3}
BATCH_US=(); BATCH_RATES=(); BATCH_MOCK=()
for _ in $(seq 1 "$BENCH_RUNS"); do
    run_bench --batch 1000 --workers "${APNS_SENDER_MAX_JOBS:-4}"
    # A run without a result (apns-bench failed: its output says why) is left out of the median, and said.
    if [[ -z "${BENCH_RATE:-}" ]] || awk -v us="$BENCH_US" 'BEGIN { exit !(us <= 0) }'; then
        echo "e2e-fanout: an apns-bench batch run gave no result: $(tail -3 "$WORK/bench.out" | tr '\n' ' ')" >&2
        continue
    fi
    BATCH_US+=("$BENCH_US"); BATCH_RATES+=("${BENCH_RATE:-0}"); BATCH_MOCK+=("$MOCK_BENCH_US")
done
[[ ${#BATCH_US[@]} -gt 0 ]] || { echo "e2e-fanout: every apns-bench batch run failed" >&2; BATCH_US=(0); BATCH_RATES=(0); BATCH_MOCK=(0); }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
BENCH_US=$(median "${BATCH_US[@]}"); BENCH_RATE=$(median "${BATCH_RATES[@]}"); MOCK_BENCH_US=$(median "${BATCH_MOCK[@]}")
"$BIN_DIR/apns-bench" --write-h2load-inputs "$WORK/h2" --key "$KEY" >/dev/null
HEADER_ARGS=()
while IFS= read -r line; do [[ -n "$line" ]] && HEADER_ARGS+=(-H "$line"); done <"$WORK/h2/headers.txt"
h2load -n "$BENCH_N" -c "$CONNECTIONS" -m 1000 -t 1 -d "$WORK/h2/payload.json" "${HEADER_ARGS[@]}" \
    "https://127.0.0.1:$MOCK_PORT$(cat "$WORK/h2/path.txt")" >"$WORK/h2load.out" 2>&1 || true
H2_RATE=$(awk '/finished in/ { for (i = 1; i <= NF; i++) if ($i ~ /req\/s/) { v = $(i-1); gsub(",", "", v); print v } }' "$WORK/h2load.out" | head -1)
H2_RATE=${H2_RATE%.*}
echo "# same mock: apns-bench batches of 1,000 ${BENCH_RATE:-?} pushes/s at ${BENCH_US} µs CPU per push (mock ${MOCK_BENCH_US} µs/request; median of ${#BATCH_US[@]} runs: ${BATCH_US[*]} µs); h2load ${H2_RATE:-?} req/s"
for i in "${!RUNS[@]}"; do
    awk -v n="${RUNS[$i]/:/ share }" -v e="${E2E_RATES[$i]}" -v h="${H2_RATE:-0}" -v s="${SENDER_COSTS[$i]}" -v b="$BENCH_US" \
        'BEGIN { printf "# N=%s: end-to-end / h2load = %.1f %% (target >= 90 %%); apns-sender / apns-bench CPU per push = %.2fx (target <= 1.0x)\n", n, (h > 0 ? 100 * e / h : 0), (b > 0 ? s / b : 0) }'
    awk -v n="${RUNS[$i]/:/ share }" -v m="${MOCK_COSTS[$i]}" -v budget="$MOCK_BUDGET_US" \
        'BEGIN { printf "# N=%s: mock-apns CPU per request in the fan-out = %.1f µs (budget <= %d µs: %s)\n", n, m, budget, (m <= budget ? "ok" : "OVER: the mock bounds every end-to-end figure; profile it (perf record -g -p its pid)") }'
done
