import Runtime

/// The metrics of Live Activity management (`/metrics` of la-coordinator); the names are the ones the poller
/// exported before the work moved here, so dashboards and alerts keep working.
public struct ActivityManagementMetrics: Sendable {
    let registry: MetricsRegistry
    let leader: Gauge
    let startJobs: Counter
    let restartJobs: Counter
    let newDayJobs: Counter
    let rolloverJobs: Counter
    let ttlDeleted: Counter

    public init(registry: MetricsRegistry) {
        self.registry = registry
        leader = registry.gauge("la_management_leader", help: "1 while this replica holds the Live Activity management lock.")
        let help = "Push-to-start jobs for followers of a live match."
        startJobs = registry.counter("orchestrator_start_jobs_total", help: help, labels: ["reason": "new"])
        restartJobs = registry.counter("orchestrator_start_jobs_total", help: help, labels: ["reason": "token_invalid"])
        newDayJobs = registry.counter("orchestrator_start_jobs_total", help: help, labels: ["reason": "new_day"])
        rolloverJobs = registry.counter("orchestrator_start_jobs_total", help: help, labels: ["reason": "rollover"])
        ttlDeleted = registry.counter("ttl_rows_deleted_total", help: "Expired rows deleted by the TTL sweep.")
        // The refusals BroadcastChannelCreateRefused is about, at 0 from the start (so `increase()` sees the first).
        for environment in ["sandbox", "production"] {
            for reason in ["CannotCreateChannelConfig", "FeatureNotEnabled"] {
                registry.counter("broadcast_channel_create_failures_total", help: "Channel creates APNs refused, by reason (the match stays on tokens)",
                                 labels: ["env": environment, "reason": reason]).increment(by: 0)
            }
        }
    }
}
