#!/usr/bin/env bash
# api benchmark with wrk: follows/s (POST /user/follow/match, random users × live matches, each user
# with a push-to-start device, so most follows write a PENDING row and produce a start job) and the
# GET /matches/live rate, with p99 latency. Targets: ≥ 5,000 follows/s with p99 ≤ 20 ms.
# Needs the local stack (PostgreSQL + Kafka). Jobs go to the topic api-bench.push.jobs, not push.jobs.
# Usage: Benchmarks/api-bench.sh [--duration 15s] [--connections 64] [--threads 2] [--users 200] [--matches 2000] [--debug]
# The api reads its own settings from the environment (e.g. API_DB_POOL_SIZE=24 API_KAFKA_LINGER_MS=5 to compare).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env
DURATION=15s; CONNECTIONS=64; THREADS=2; USERS=200; MATCHES=2000; CONFIG=release
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --users) USERS="$2"; shift 2 ;;
    --matches) MATCHES="$2"; shift 2 ;;
    --debug) CONFIG=debug; shift ;;
    *) sed -n 2,7p "$0" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 1; }
swift build -c "$CONFIG" --product api >/dev/null
swift build -c "$CONFIG" --product sightscreen >/dev/null
swift build -c "$CONFIG" --product sightscreen-dev >/dev/null  # `sightscreen dev-keys` runs it
BIN="$(swift build -c "$CONFIG" --show-bin-path)"
PSQL=(psql -q -v ON_ERROR_STOP=1 "$DATABASE_URL")

WORK="$(mktemp -d)"
RUN="bench-$(date +%s)"
API_PID=""
cleanup() {
  if [ -n "$API_PID" ]; then kill "$API_PID" 2>/dev/null || true; wait "$API_PID" 2>/dev/null || true; fi
  "${PSQL[@]}" -c "DELETE FROM live_activities WHERE match_id LIKE '$RUN-%';
    DELETE FROM match_follows WHERE match_id LIKE '$RUN-%'; DELETE FROM active_matches WHERE match_id LIKE '$RUN-%';
    DELETE FROM matches WHERE match_id LIKE '$RUN-%'; DELETE FROM devices WHERE user_id LIKE '$RUN-%';" >/dev/null 2>&1 || true
  # Tansu (memory storage) keeps every record it was sent and slows down as it grows: drop the bench's jobs.
  python3 - "$KAFKA_BROKERS" >/dev/null 2>&1 <<'PY' || true
import sys
from confluent_kafka.admin import AdminClient
for future in AdminClient({"bootstrap.servers": sys.argv[1]}).delete_topics(["api-bench.push.jobs"]).values():
    future.result(15)
PY
  rm -rf "$WORK"
}
trap cleanup EXIT

export DEV_KEYS_DIR="$WORK/dev-keys"
echo "api-bench.push.jobs 24 retention.ms=600000" > "$WORK/topics.conf"
"$BIN/sightscreen" topics create --config "$WORK/topics.conf" >/dev/null
"$BIN/sightscreen" migrate >/dev/null

# Live matches with a display state (as the detector writes it once a match is live) and a card.
"${PSQL[@]}" <<SQL
INSERT INTO matches (match_id, starts_at, status, is_live, card)
SELECT '$RUN-m' || i, now(), '1st Innings', true,
  jsonb_build_object('matchId', '$RUN-m' || i, 'startsAt', extract(epoch from now())::bigint, 'status', '1st Innings', 'phase', 'live',
    'title', 'India vs Australia', 'subtitle', '1st T20I', 'statusText', 'India batting',
    'home', jsonb_build_object('name', 'India', 'abbr', 'IND', 'score', '87/3 (10.2)'),
    'away', jsonb_build_object('name', 'Australia', 'abbr', 'AUS', 'score', ''))
FROM generate_series(1, $MATCHES) i;
INSERT INTO active_matches (match_id, display_state, seq)
SELECT '$RUN-m' || i, jsonb_build_object('matchId', '$RUN-m' || i, 'matchDisplayState', 'live', 'title', 'India vs Australia',
    'subtitle', '1st T20I', 'statusText', 'India batting',
    'compactLeading', jsonb_build_object('teamAbbr', 'IND', 'score', '87/3'),
    'compactTrailing', jsonb_build_object('overs', '10.2', 'runRate', '8.41'), 'minimal', jsonb_build_object('text', '87/3'),
    'expanded', jsonb_build_object('batting', jsonb_build_object('abbr', 'IND', 'name', 'India', 'score', '87/3', 'overs', '10.2'),
      'bowling', jsonb_build_object('abbr', 'AUS', 'name', 'Australia', 'score', '', 'overs', ''),
      'batters', jsonb_build_array(jsonb_build_object('name', 'Rohit Sharma', 'score', '45 (32)', 'onStrike', true)),
      'lastBalls', jsonb_build_array('1', '4', 'W', '.', '1', '6'), 'runRate', 'RR 8.41'),
    'lockScreen', jsonb_build_object('headline', 'IND 87/3 (10.2)', 'detail', 'Rohit Sharma 45 (32)', 'footer', 'India batting'),
    'updatedAt', extract(epoch from now())::bigint), 1
FROM generate_series(1, $MATCHES) i;
SQL

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
PORT="$(free_port)"
METRICS_PORT="$(free_port)"
"$BIN/sightscreen" dev-keys >/dev/null
HTTP_PORT="$PORT" METRICS_PORT="$METRICS_PORT" AUTH_JWKS_PATH="$DEV_KEYS_DIR/jwks.json" PUSH_JOBS_TOPIC=api-bench.push.jobs LOG_LEVEL=error \
  API_RATE_LIMIT_PER_MINUTE=0 "$BIN/api" >"$WORK/api.log" 2>&1 &
API_PID=$!
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break; sleep 0.1; done

# One token and one push-to-start device per user.
for i in $(seq 1 "$USERS"); do
  TOKEN="$("$BIN/sightscreen" token --user "$RUN-u$i" --ttl 3600)"
  echo "$TOKEN" >> "$WORK/tokens.txt"
  HEX="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  curl -fsS -o /dev/null -X POST "http://127.0.0.1:$PORT/devices" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d "{\"deviceId\":\"d1\",\"pushToStartToken\":\"$HEX\",\"apnsEnvironment\":\"sandbox\",\"appVersion\":\"1.0\"}"
done

export BENCH_TOKENS="$WORK/tokens.txt" BENCH_PREFIX="$RUN" BENCH_MATCHES="$MATCHES"
summarize() {  # name, wrk output file
  local rps p99 errors
  rps="$(awk '/Requests\/sec/ {print $2}' "$2")"
  p99="$(awk '$1 == "99%" {print $2}' "$2")"
  errors="$(awk '/Non-2xx/ {print $5}' "$2")"
  printf '%-28s %10s req/s   p99 %8s   non-2xx %s\n' "$1" "$rps" "$p99" "${errors:-0}"
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; $USERS users × $MATCHES live matches; $CONNECTIONS connections, $THREADS wrk threads, $DURATION, $CONFIG build"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s Benchmarks/api-bench/follow.lua "http://127.0.0.1:$PORT" > "$WORK/follow.txt" &
WRK_PID=$!
Benchmarks/api-bench/cpu-window.sh "$API_PID" "$WRK_PID" "$METRICS_PORT" 2 10 > "$WORK/cpu.txt" 2>&1 || true
wait "$WRK_PID"
FOLLOWS="$("${PSQL[@]}" -At -c "SELECT count(*) FROM match_follows WHERE match_id LIKE '$RUN-%'")"
STARTS="$("${PSQL[@]}" -At -c "SELECT count(*) FROM live_activities WHERE match_id LIKE '$RUN-%'")"
# GET /matches/live with a realistic 20 live matches (the answer lists every live match's state).
"${PSQL[@]}" -c "UPDATE matches SET is_live = false WHERE match_id LIKE '$RUN-m%' AND substring(match_id from '-m([0-9]+)\$')::int > 20"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s Benchmarks/api-bench/live.lua "http://127.0.0.1:$PORT" > "$WORK/live.txt" &
WRK_PID=$!
Benchmarks/api-bench/cpu-window.sh "$API_PID" "$WRK_PID" "$METRICS_PORT" 2 10 /matches/live >> "$WORK/cpu.txt" 2>&1 || true
wait "$WRK_PID"
echo "--- results"
summarize "POST /user/follow/match" "$WORK/follow.txt"
summarize "GET /matches/live" "$WORK/live.txt"
cat "$WORK/cpu.txt"
curl -fsS "http://127.0.0.1:$METRICS_PORT/metrics" | awk '/^api_follow_batch_size_(sum|count)/ { v[$1] = $2 } END {
  if (v["api_follow_batch_size_count"] > 0) printf "follow batches: %d, %.1f distinct follows per statement\n", v["api_follow_batch_size_count"], v["api_follow_batch_size_sum"] / v["api_follow_batch_size_count"] }'
echo "distinct follows written: $FOLLOWS; PENDING rows (each with a start job on api-bench.push.jobs): $STARTS"
echo "--- wrk detail (follow)"; sed -n '/Latency Distribution/,/Requests\/sec/p' "$WORK/follow.txt"
echo "--- wrk detail (live)"; sed -n '/Latency Distribution/,/Requests\/sec/p' "$WORK/live.txt"
