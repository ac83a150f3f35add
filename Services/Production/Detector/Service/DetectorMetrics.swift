import Runtime

/// The detector's counters (Prometheus names `detector_*`).
struct DetectorMetrics: Sendable {
    let registry: MetricsRegistry

    func snapshot(_ disposition: String) {
        registry.counter("detector_snapshots_total", help: "Fixture snapshots by disposition", labels: ["disposition": disposition])
            .increment()
    }

    func badMessage(_ kind: String) {
        registry.counter("detector_bad_messages_total", help: "Messages skipped as unreadable", labels: ["kind": kind]).increment()
    }

    func resync() {
        registry.counter("detector_ball_history_resyncs_total",
                         help: "Snapshots that did not follow the remembered chain; the ball set was rebuilt from feed_balls").increment()
    }

    func unknownStatus() {
        registry.counter("detector_unknown_status_total", help: "Snapshots with an undocumented status string").increment()
    }

    func corrections(_ count: Int) {
        registry.counter("detector_corrected_balls_total", help: "Recent balls whose outcome changed").increment(by: count)
    }

    func event(kind: String, priority: Int) {
        registry.counter("detector_events_total", help: "Match events produced",
                         labels: ["kind": kind, "priority": String(priority)]).increment()
    }

    func failure(_ stage: String) {
        registry.counter("detector_failures_total", help: "Retried failures by stage", labels: ["stage": stage]).increment()
    }
}
