import Runtime

/// `apns_pushes_total{action,reason}` without building label text per push: the delivered series (nearly
/// every push) is looked up once, at start; the rare others go through the registry as they come.
struct APNsPushCounters: Sendable {
    private static let name = "apns_pushes_total"
    private static let help = "Pushes by final action and APNs reason"
    private let registry: MetricsRegistry
    private let delivered: Counter

    init(registry: MetricsRegistry) {
        self.registry = registry
        delivered = registry.counter(Self.name, help: Self.help, labels: ["action": APNsAction.delivered.rawValue, "reason": ""])
    }

    /// Counts one final outcome.
    func count(_ outcome: APNsOutcome) {
        if outcome.action == .delivered && outcome.reason == nil {
            delivered.increment()
            return
        }
        registry.counter(Self.name, help: Self.help, labels: [
            "action": outcome.action.rawValue, "reason": outcome.reason?.rawValue ?? (outcome.status == 200 ? "" : "none"),
        ]).increment()
    }
}
