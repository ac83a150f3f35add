#!/usr/bin/env bash
# CPU time per answered request of each process over a window of a wrk phase (follows by default):
#   cpu-window.sh API_PID WRK_PID METRICS_PORT [WAIT_SECONDS=2] [WINDOW_SECONDS=10] [ROUTE=/user/follow/match]
# Waits WAIT_SECONDS, then samples utime+stime (/proc/PID/stat) of the api, its PostgreSQL backends
# (application_name 'api'), the Tansu broker (the process listening on $KAFKA_PORT) and wrk, the api's
# context switches (all threads) and the 200s it answered on ROUTE (its /metrics), again WINDOW_SECONDS
# later, and prints µs of CPU and context switches per request answered in the window.
set -euo pipefail
API_PID="$1"; WRK_PID="$2"; PORT="$3"; WAIT="${4:-2}"; WINDOW="${5:-10}"; ROUTE="${6:-/user/follow/match}"
if [ "$ROUTE" = /user/follow/match ]; then WHAT=follow; else WHAT="GET $ROUTE"; fi
TICK="$(getconf CLK_TCK)"
ticks() { local total=0 pid; for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] || continue
    total=$(( total + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat") )); done; echo "$total"; }
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { s += $2 } END { print s + 0 }'; }
follows() { curl -fsS "http://127.0.0.1:$PORT/metrics" | awk -v route="$ROUTE" '/^http_requests_total/ && index($0, "route=\"" route "\"") && /status="200"/ { s += $2 } END { print s + 0 }'; }
backends() { psql -At "$DATABASE_URL" -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'api'"; }
TANSU_PID="$(ss -ltnpH "sport = :${KAFKA_PORT:-19092}" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1)"
sleep "$WAIT"
mapfile -t PG < <(backends)
a0=$(ticks "$API_PID"); p0=$(ticks "${PG[@]}"); t0=$(ticks "$TANSU_PID"); w0=$(ticks "$WRK_PID"); c0=$(switches "$API_PID"); f0=$(follows)
sleep "$WINDOW"
a1=$(ticks "$API_PID"); p1=$(ticks "${PG[@]}"); t1=$(ticks "$TANSU_PID"); w1=$(ticks "$WRK_PID"); c1=$(switches "$API_PID"); f1=$(follows)
n=$(( f1 - f0 )); [ "$n" -gt 0 ] || { echo "cpu window: no $WHAT answered"; exit 0; }
per() { awk -v d="$1" -v t="$TICK" -v n="$n" 'BEGIN { printf "%.0f", d / t * 1e6 / n }'; }
echo "cpu per $WHAT over ${WINDOW}s ($n answered, $(( n / WINDOW ))/s; load $(cut -d' ' -f1 /proc/loadavg)): api $(per $(( a1 - a0 ))) µs, PostgreSQL $(per $(( p1 - p0 ))) µs (${#PG[@]} backends), Tansu $(per $(( t1 - t0 ))) µs, wrk $(per $(( w1 - w0 ))) µs; api context switches $(awk -v c=$(( c1 - c0 )) -v n="$n" 'BEGIN { printf "%.1f", c / n }')/request"
