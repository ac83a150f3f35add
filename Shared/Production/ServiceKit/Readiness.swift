import Synchronization
import Runtime

/// Named readiness conditions of a service; `/ready` answers 200 only when all are met.
public final class Readiness: Sendable {
    private let conditions = LockedValue<[String: Bool]>([:])

    public init() {}

    /// Declares or updates a condition, e.g. `set("kafka", true)`.
    public func set(_ name: String, _ ready: Bool) {
        conditions.withLock { $0[name] = ready }
    }

    /// True when at least one condition is declared and all are met.
    public var isReady: Bool {
        conditions.withLock { !$0.isEmpty && $0.values.allSatisfy { $0 } }
    }

    /// The conditions not met, sorted by name.
    public var unmet: [String] {
        conditions.withLock { $0.filter { !$0.value }.keys.sorted() }
    }
}
