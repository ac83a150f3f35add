#!/usr/bin/env bash
# APNs throughput: N pushes from the APNs client (apns-bench) to mock-apns on this machine, then
# h2load against the same mock with the same connections and streams; prints both and the ratio.
#
#   Benchmarks/apns-throughput.sh [N=200000] [CONNECTIONS=2] [STREAMS=500]
# Env: BIN_DIR (prebuilt release binaries; default: build them with `swift build -c release`),
#      MOCK_THREADS (mock event-loop threads, default 1), PORT (default 22197).
# Targets (issue 6): >= 50,000 pushes/s, >= 80 % of h2load's rate, peak RSS <= 200 MB.
set -euo pipefail
N=${1:-200000}
C=${2:-2}
M=${3:-500}
PORT=${PORT:-22197}
MOCK_THREADS=${MOCK_THREADS:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-/work/main/.local/lib}

if [[ -z "${BIN_DIR:-}" ]]; then
    (cd "$ROOT" && swift build -c release --product mock-apns >/dev/null && swift build -c release --product apns-bench >/dev/null)
    BIN_DIR=$(cd "$ROOT" && swift build -c release --show-bin-path)
fi
command -v h2load >/dev/null || { echo "h2load missing: apt-get install nghttp2-client" >&2; exit 1; }

WORK=$(mktemp -d /tmp/apns-bench.XXXXXX)
MOCK_PID=""
cleanup() { [[ -n "$MOCK_PID" ]] && kill "$MOCK_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

"$BIN_DIR/mock-apns" --generate-dev-key "$WORK/keys" >/dev/null
KEY="$WORK/keys/AuthKey_DEVKEY0001.p8"
"$BIN_DIR/mock-apns" --port "$PORT" --cert-dir "$WORK/tls" --key "$KEY" --no-record --threads "$MOCK_THREADS" \
    >"$WORK/mock.out" 2>"$WORK/mock.err" &
MOCK_PID=$!
for _ in $(seq 1 100); do grep -q listening "$WORK/mock.out" 2>/dev/null && break; sleep 0.1; done
grep -q listening "$WORK/mock.out" || { echo "mock-apns did not start:"; cat "$WORK/mock.err"; exit 1; }
CA="$WORK/tls/cert.pem"

echo "== APNs client (apns-bench) -> mock-apns: $N pushes, $C connections x $M streams"
"$BIN_DIR/apns-bench" --port "$PORT" --ca "$CA" --key "$KEY" -n "$N" -c "$C" -m "$M" | tee "$WORK/bench.out"
CLIENT_RATE=$(awk '/^RESULT/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "rate") print kv[2] } }' "$WORK/bench.out")

"$BIN_DIR/apns-bench" --write-h2load-inputs "$WORK/h2" --key "$KEY"
HEADER_ARGS=()
while IFS= read -r line; do [[ -n "$line" ]] && HEADER_ARGS+=(-H "$line"); done <"$WORK/h2/headers.txt"
PATH_PART=$(cat "$WORK/h2/path.txt")
echo "== h2load -> mock-apns: $N requests, $C connections x $M streams"
h2load -n "$N" -c "$C" -m "$M" -t 1 -d "$WORK/h2/payload.json" "${HEADER_ARGS[@]}" \
    "https://127.0.0.1:$PORT$PATH_PART" >"$WORK/h2load.out" 2>&1 || true
grep -E "finished in|requests:|status codes:" "$WORK/h2load.out" | sed 's/^/  /'
H2_RATE=$(awk '/finished in/ { for (i = 1; i <= NF; i++) if ($i ~ /req\/s/) { v = $(i-1); gsub(",", "", v); print v } }' "$WORK/h2load.out" | head -1)
H2_RATE=${H2_RATE%.*}
if [[ -n "$CLIENT_RATE" && -n "$H2_RATE" && "$H2_RATE" -gt 0 ]]; then
    awk -v c="$CLIENT_RATE" -v h="$H2_RATE" 'BEGIN { printf "== ratio: client %.0f/s vs h2load %.0f/s = %.1f %%\n", c, h, 100 * c / h }'
fi
curl -sk --http2 "https://127.0.0.1:$PORT/mock/counters" 2>/dev/null | sed 's/^/== mock counters: /' || true
echo
