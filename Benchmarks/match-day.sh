#!/usr/bin/env bash
# The match day at benchmark size (issue 42): the whole product as real processes replays a faulted T20 final with two
# more matches live alongside (a T20 and an ODI by default), every simulated device following all of them, some
# leaving and coming back, while the fault script hits it (kill -9 and restart of every service, a 20 s broker pause,
# PostgreSQL paused and restarted, APNs 429/500/503 storms, GOAWAYs, slow answers, bad feed responses) — then the
# independent checker (`sightscreen check-day`) reads what APNs and the devices saw, the feed's timeline and the faults,
# and prints violations and freshness p50/p99 per match inside and outside the fault windows.
#   Benchmarks/match-day.sh [--devices N] [--speed X] [--rounds R] [--match ID] [--others ID,ID|none]
# Any KAFKA_BROKERS / DATABASE_URL (scripts/env's defaults otherwise); the stack's servers must run (scripts/stack up).
# The record, report.txt, report.json and freshness.svg stay in $STACK_DIR/logs/fault/match-day.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "match-day: load before $(load) ($(nproc) cores)"
started=$(date +%s)
status=0
scripts/fault-suite "$@" || status=$?
echo "match-day: the run took $(( $(date +%s) - started )) s, exit $status; load after $(load)"
record="$STACK_DIR/logs/fault/match-day"
[ -f "$record/deliveries.json" ] || { echo "match-day: no record in $record (the run failed before the check)" >&2; exit 1; }
bin=$(swift build --show-bin-path)
swift build --product sightscreen-dev >/dev/null
"$bin/sightscreen-dev" check-day --record "$record"
exit "$status"
