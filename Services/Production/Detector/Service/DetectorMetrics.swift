import Detection
import Runtime

/// The detector's counters (Prometheus names `detector_*`).
struct DetectorMetrics: Sendable {
    let registry: MetricsRegistry

    /// Why a message can be skipped (`MessageDecodeError.kind`, a refused fixture, a broken ball chain).
    static let badMessageKinds = [
        "malformed_json", "unsupported_schema", "invalid_field", "too_large", "invalid_fixture", "incomplete_ball_history",
    ]
    /// Where a retried failure can happen.
    static let failureStages = ["handle"]

    /// Exports every known label set of the failure counters at 0, so `increase()` sees the first failure.
    init(registry: MetricsRegistry) {
        self.registry = registry
        for kind in Self.badMessageKinds {
            registry.counter("detector_bad_messages_total", help: "Messages skipped as unreadable", labels: ["kind": kind]).increment(by: 0)
        }
        for kind in FeedContradiction.kinds {
            registry.counter("detector_feed_contradictions_total", help: "Snapshots whose outcome or innings fields contradict their balls",
                             labels: ["kind": kind]).increment(by: 0)
        }
        for disposition in DetectionOutcome.Disposition.allCases {
            registry.counter("detector_snapshots_total", help: "Fixture snapshots by disposition", labels: ["disposition": disposition.rawValue])
                .increment(by: 0)
        }
        for stage in Self.failureStages {
            registry.counter("detector_failures_total", help: "Retried failures by stage", labels: ["stage": stage]).increment(by: 0)
        }
    }

    func snapshot(_ disposition: String) {
        registry.counter("detector_snapshots_total", help: "Fixture snapshots by disposition", labels: ["disposition": disposition])
            .increment()
    }

    func badMessage(_ kind: String) {
        registry.counter("detector_bad_messages_total", help: "Messages skipped as unreadable", labels: ["kind": kind]).increment()
    }

    func contradiction(_ kind: String) {
        registry.counter("detector_feed_contradictions_total", help: "Snapshots whose outcome or innings fields contradict their balls",
                         labels: ["kind": kind]).increment()
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
