import Runtime

/// `apns_pushes_total{action,reason}` without building label text per push: the delivered series (nearly
/// every push) is looked up once, at start; the rare others go through the registry as they come.
struct APNsPushCounters: Sendable {
    private let registry: MetricsRegistry
    private let delivered: Counter

    init(registry: MetricsRegistry) {
        self.registry = registry
        delivered = Self.series(registry, action: APNsAction.delivered.rawValue, reason: "")
    }

    /// Counts one final outcome.
    func count(_ outcome: APNsOutcome) {
        if outcome.action == .delivered && outcome.reason == nil {
            delivered.increment()
            return
        }
        Self.series(registry, action: outcome.action.rawValue, reason: outcome.reason?.rawValue ?? (outcome.status == 200 ? "" : "none"))
            .increment()
    }

    private static func series(_ registry: MetricsRegistry, action: String, reason: String) -> Counter {
        registry.counter("apns_pushes_total", help: "Pushes by final action and APNs reason", labels: ["action": action, "reason": reason])
    }
}
