import Contracts
import Foundation
import Runtime

/// Per-match figures for the operator's view of a match (`sightscreen match ID`, `GET /admin/matches/:id/status`):
/// `apns_sender_match_pushes_total{match,result}` (result `accepted`, `refused` — token invalid —, `dead`) and
/// `apns_sender_match_freshness_seconds{match}` (the same figure as `push_freshness_seconds`, per match), for the
/// `capacity` matches with the most recent pushes: an older match's series are dropped, so the label's
/// cardinality stays bounded however many matches a replica serves in its life.
final class MatchPushTally: Sendable {
    let registry: MetricsRegistry
    let capacity: Int
    private struct Recent {
        var lastSeen: [String: UInt64] = [:]
        var tick: UInt64 = 0
    }
    private let recent = LockedValue(Recent())

    init(registry: MetricsRegistry, capacity: Int = 32) {
        self.registry = registry
        self.capacity = max(1, capacity)
    }

    /// Counts `count` targets (or broadcasts) of `matchId` with `result`.
    func count(_ matchId: String, _ result: String, _ count: Int) {
        guard count > 0 else { return }
        tracked(matchId) {
            registry.counter("apns_sender_match_pushes_total", help: "Pushes by final answer, per recent match",
                             labels: ["match": matchId, "result": result]).increment(by: count)
        }
    }

    /// Observes the freshness of `count` accepted pushes of `matchId`.
    func freshness(_ matchId: String, seconds: Double, count: Int) {
        guard count > 0 else { return }
        tracked(matchId) {
            registry.histogram("apns_sender_match_freshness_seconds", help: "APNs acceptance minus the poll that saw the content, per recent match",
                               labels: ["match": matchId], buckets: SenderMetrics.freshnessBuckets)
                .observe(seconds, times: count)
        }
    }

    /// Marks `matchId` as the latest, drops the series of the least recent match beyond `capacity`, and records —
    /// all under one lock, so an eviction never removes a series another thread is adding to.
    private func tracked(_ matchId: String, _ record: () -> Void) {
        recent.withLock { recent in
            recent.tick += 1
            recent.lastSeen[matchId] = recent.tick
            if recent.lastSeen.count > capacity, let oldest = recent.lastSeen.min(by: { $0.value < $1.value })?.key {
                recent.lastSeen[oldest] = nil
                registry.removeSeries(label: "match", value: oldest)
            }
            record()
        }
    }
}
