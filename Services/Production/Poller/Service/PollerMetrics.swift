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
    }

    static let errorsHelp = "Poller errors by kind; the loop continues after each."

    /// Counts one error of `kind` in `poller_errors_total{kind}`.
    func error(_ kind: String) {
        registry.counter("poller_errors_total", help: Self.errorsHelp, labels: ["kind": kind]).increment()
    }

    /// Errors of `kind` so far.
    func errors(_ kind: String) -> Int {
        registry.counter("poller_errors_total", help: Self.errorsHelp, labels: ["kind": kind]).count
    }
}
