import Foundation
import Synchronization

/// Encoded push-to-start bodies by (match, state text), for the current second only, so the many
/// follows of a live match encode its start payload once per second and state instead of once
/// per device and request (the body holds the second as its timestamp, so nothing older is kept).
///
/// The key is the whole text the payload is built from (`FollowOutcome.stateText`), so a changed
/// state is a different key and a stale body is never returned. Bounded: when full, or when the
/// second changes, every entry is dropped.
final class StartPayloadCache: Sendable {
    private struct Key: Hashable {
        var matchId: String
        var stateText: String
    }

    private struct Entries {
        var second: Int64 = .min
        var payloads: [Key: String] = [:]
    }

    /// Most bodies kept within one second.
    let capacity: Int
    private let entries = Mutex(Entries())

    init(capacity: Int = 1024) {
        self.capacity = max(1, capacity)
    }

    /// The body for (`matchId`, `stateText`) at `now`'s second: cached, else `make()` (cached when
    /// not nil). `make` must build it from exactly that match, text and second.
    func payload(matchId: String, stateText: String, now: Date, make: () -> String?) -> String? {
        let second = Int64(now.timeIntervalSince1970)
        let key = Key(matchId: matchId, stateText: stateText)
        if let cached = entries.withLock({ $0.second == second ? $0.payloads[key] : nil }) { return cached }
        guard let made = make() else { return nil }
        entries.withLock { entries in
            if entries.second != second || entries.payloads.count >= capacity {
                entries.second = second
                entries.payloads.removeAll(keepingCapacity: true)
            }
            entries.payloads[key] = made
        }
        return made
    }
}
