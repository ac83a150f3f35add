import Runtime

/// The poller's metrics (`/metrics`).
public struct PollerMetrics: Sendable {
    let registry: MetricsRegistry
    let polls: Counter
    let published: Counter
    let unchanged: Counter
    let snapshotPages: Counter
    let snapshotBytes: Gauge
    let liveFixtures: Gauge
    let leader: Gauge
    let scheduleRows: Counter
    let startJobs: Counter
    let restartJobs: Counter
    let newDayJobs: Counter
    let rolloverJobs: Counter
    let ttlDeleted: Counter

    public init(registry: MetricsRegistry) {
        self.registry = registry
        polls = registry.counter("poller_polls_total", help: "Successful livescores polls.")
        published = registry.counter("poller_snapshots_published_total", help: "Fixture snapshots published (changed fixtures).")
        snapshotPages = registry.counter("poller_snapshot_messages_total", help: "sportmonks.fixtures messages produced (a poll of a changed fixture is one or more pages).")
        snapshotBytes = registry.gauge("poller_snapshot_largest_message_bytes", help: "Largest sportmonks.fixtures message produced since the poller started (bound: 262144).")
        unchanged = registry.counter("poller_fixtures_unchanged_total", help: "Polled fixtures identical to the last published one.")
        liveFixtures = registry.gauge("poller_live_fixtures", help: "Fixtures in the last livescores reply.")
        leader = registry.gauge("poller_leader", help: "1 while this replica holds the poller advisory lock.")
        scheduleRows = registry.counter("poller_schedule_rows_changed_total", help: "matches rows inserted or changed by the schedule sync.")
        startJobs = registry.counter("orchestrator_start_jobs_total", help: "Push-to-start jobs for followers of a live match.", labels: ["reason": "new"])
        restartJobs = registry.counter("orchestrator_start_jobs_total", help: "Push-to-start jobs for followers of a live match.", labels: ["reason": "token_invalid"])
        newDayJobs = registry.counter("orchestrator_start_jobs_total", help: "Push-to-start jobs for followers of a live match.", labels: ["reason": "new_day"])
        rolloverJobs = registry.counter("orchestrator_start_jobs_total", help: "Push-to-start jobs for followers of a live match.", labels: ["reason": "rollover"])
        ttlDeleted = registry.counter("ttl_rows_deleted_total", help: "Expired rows deleted by the TTL sweep.")
    }

    /// Counts one error of `kind` in `poller_errors_total{kind}`.
    func error(_ kind: String) {
        registry.counter("poller_errors_total", help: "Poller errors by kind; the loop continues after each.", labels: ["kind": kind]).increment()
    }

    /// Errors of `kind` so far.
    func errors(_ kind: String) -> Int {
        registry.counter("poller_errors_total", help: "Poller errors by kind; the loop continues after each.", labels: ["kind": kind]).count
    }
}
