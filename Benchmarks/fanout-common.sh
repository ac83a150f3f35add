# Shared by Benchmarks/e2e-fanout.sh and Benchmarks/sustained-fanout.sh (sourced, not run): building the release
# binaries, mock-apns, the real la-coordinator and apns-sender on a run's own topics and groups, and the /proc
# figures. Needs ROOT, WORK and MOCK_PORT set by the caller; sets TICKS, BIN_DIR (when unset), MOCK_PID, KEY, CA.
TICKS=$(getconf CLK_TCK)

# build_release PRODUCT…: release builds of the products, unless BIN_DIR names prebuilt ones.
build_release() {
    if [[ -z "${BIN_DIR:-}" ]]; then
        echo "$(basename "$0"): building release binaries" >&2
        local product
        for product in "$@"; do (cd "$ROOT" && swift build -c release --product "$product" >/dev/null); done
        BIN_DIR=$(cd "$ROOT" && swift build -c release --show-bin-path)
    fi
}

# /proc figures: CPU ticks of one process, of every process named $1, and peak RSS in MB.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# PostgreSQL's backends come and go during a run: remember each one's ticks at the start (snapshot_named),
# then count the growth of those still there plus all of the ones that started since (delta_named).
declare -A NAMED_START
snapshot_named() { NAMED_START=(); local pid; for pid in $(pgrep -x "$1" || true); do NAMED_START[$pid]=$(ticks "$pid"); done; }
delta_named() {
    local sum=0 pid now
    for pid in $(pgrep -x "$1" || true); do now=$(ticks "$pid"); sum=$((sum + now - ${NAMED_START[$pid]:-0})); done
    echo "$sum"
}
peak_mb() { awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo 0; }
ticks_all() { local sum=0 pid; for pid in "$@"; do sum=$((sum + $(ticks "$pid"))); done; echo "$sum"; }
peak_mb_all() { local top=0 pid value; for pid in "$@"; do value=$(peak_mb "$pid"); [[ "$value" -gt "$top" ]] && top=$value; done; echo "$top"; }
per_push() { awk -v t="$1" -v n="$2" -v hz="$TICKS" 'BEGIN { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }'; }
counters() { curl -sk --http2 "https://127.0.0.1:$MOCK_PORT/mock/counters"; }
reset_mock() { curl -sk --http2 -X POST "https://127.0.0.1:$MOCK_PORT/mock/reset" >/dev/null; }
# metric PORT NAME: the value of one series on a service's /metrics (0 when absent).
metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v name="$2" '$1 == name { printf "%.0f", $2; found = 1 } END { if (!found) print 0 }'; }
field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
wait_ready() {
    for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$1/ready" >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "$(basename "$0"): $2 not ready on port $1:" >&2; tail -20 "$WORK/$2.err" >&2; return 1
}

# start_mock: mock-apns as the demo runs it (dev key, self-signed TLS, payload checks and recording on).
start_mock() {
    "$BIN_DIR/mock-apns" --generate-dev-key "$WORK/keys" >/dev/null
    KEY="$WORK/keys/AuthKey_DEVKEY0001.p8"
    "$BIN_DIR/mock-apns" --host 127.0.0.1 --port "$MOCK_PORT" --manage-port "$((MOCK_PORT + 1))" --cert-dir "$WORK/tls" \
        --key "$WORK/keys/AuthKey_DEVKEY0001.pub.pem" \
        >"$WORK/mock.out" 2>"$WORK/mock.err" &
    MOCK_PID=$!
    for _ in $(seq 1 100); do grep -q listening "$WORK/mock.out" 2>/dev/null && break; sleep 0.1; done
    grep -q listening "$WORK/mock.out" || { echo "$(basename "$0"): mock-apns did not start:" >&2; cat "$WORK/mock.err" >&2; exit 1; }
    CA="$WORK/tls/cert.pem"
}

# start_sender RUN REPLICA: apns-sender on RUN's topics and group, /metrics on 28200 + REPLICA; its pid in STARTED_PID.
start_sender() {
    env APNS_TEAM_ID=DEVTEAM001 APNS_KEY_ID=DEVKEY0001 APNS_KEY_PATH="$KEY" APNS_BUNDLE_ID=com.sightscreen.app \
        APNS_PRODUCTION_HOST=127.0.0.1 APNS_PRODUCTION_PORT="$MOCK_PORT" APNS_SANDBOX_HOST=127.0.0.1 APNS_SANDBOX_PORT="$MOCK_PORT" \
        APNS_CA_FILE="$CA" APNS_CONNECTIONS="${APNS_CONNECTIONS:-2}" APNS_SENDER_GROUP="$1-sender" APNS_SENDER_JOBS_TOPIC="$1.jobs" \
        APNS_SENDER_TOKEN_INVALID_TOPIC="$1.invalid" APNS_SENDER_DEAD_TOPIC="$1.dead" APNS_SENDER_DEAD_LETTER_TOPIC="$1.dead-letter" \
        APNS_SENDER_OUTCOMES_TOPIC="$1.outcomes" HTTP_PORT=$((28200 + $2)) LOG_LEVEL=warning "$BIN_DIR/apns-sender" >"$WORK/apns-sender-$2.out" 2>"$WORK/apns-sender-$2.err" &
    STARTED_PID=$!
}

# start_coordinator RUN REPLICA: la-coordinator on RUN's topics and groups (apns-sender's group is RUN-sender), /metrics
# on 28100 + REPLICA; its pid in STARTED_PID.
start_coordinator() {
    env LA_EVENTS_TOPIC="$1.events" LA_JOBS_TOPIC="$1.jobs" LA_TOKEN_INVALID_TOPIC="$1.invalid" \
        LA_DEAD_LETTER_TOPIC="$1.dead-letter" LA_EVENTS_GROUP_ID="$1-la" LA_TOKEN_INVALID_GROUP_ID="$1-la-invalid" \
        LA_SENDER_GROUP="$1-sender" LA_OUTCOMES_TOPIC="$1.outcomes" LA_RECORD_GROUP_ID="$1-la-record" \
        HTTP_PORT=$((28100 + $2)) LOG_LEVEL=warning "$BIN_DIR/la-coordinator" >"$WORK/la-coordinator-$2.out" 2>"$WORK/la-coordinator-$2.err" &
    STARTED_PID=$!
}
