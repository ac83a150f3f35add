import Foundation
import Runtime

/// `push_freshness_match_seconds{match,priority}`: freshness per match for the dashboard's per-match
/// panel, with coarse buckets, and bounded: a match no push was accepted for in `idleEviction`
/// (1 h by default: past a match's end and its stale window) loses its series, so a replica that runs
/// for weeks exports only the matches of the last hour, not every match it ever sent.
final class MatchFreshnessSeries: Sendable {
    static let buckets: [Double] = [1, 2, 5, 15, 60]
    private let registry: MetricsRegistry
    private let idleEviction: TimeInterval
    private struct State {
        var lastAccepted: [String: Date] = [:]
        var lastSweep = Date.distantPast
    }
    private let state = LockedValue(State())

    init(registry: MetricsRegistry, idleEviction: TimeInterval = 3_600) {
        self.registry = registry
        self.idleEviction = idleEviction
    }

    /// Observes `count` pushes of `match` accepted `freshness` seconds after the poll; evicts idle matches (at most
    /// once a minute, so the sweep costs nothing per push).
    func observe(match: String, priority: Int, freshness: Double, count: Int, at now: Date) {
        registry.histogram("push_freshness_match_seconds", help: "APNs acceptance minus the poll that saw the content, per match (matches with a push in the last hour)",
                           labels: ["match": match, "priority": String(priority)], buckets: Self.buckets)
            .observe(freshness, times: count)
        let idle: [String] = state.withLock { state in
            state.lastAccepted[match] = now
            guard now.timeIntervalSince(state.lastSweep) >= 60 else { return [] }
            state.lastSweep = now
            let gone = state.lastAccepted.filter { now.timeIntervalSince($0.value) > idleEviction }.map(\.key)
            for match in gone { state.lastAccepted[match] = nil }
            return gone
        }
        for match in idle { registry.removeSeries(label: "match", value: match) }
    }

    /// The matches with series now.
    var matches: Set<String> { state.withLock { Set($0.lastAccepted.keys) } }
}
