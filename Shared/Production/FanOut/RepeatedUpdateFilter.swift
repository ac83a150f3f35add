import Contracts
import Synchronization
import Runtime

/// Keeps a plain update from being pushed when the match's last fanned-out event already carried
/// exactly its content: the same display state and the same `emittedAt` (the push's `timestamp`).
///
/// One snapshot can yield several events (a four and a fifty, or a burst of balls after the feed
/// was down), all with the snapshot's display state and time. `LatestWins` drops the older plain
/// ones when they arrive in one batch; when they arrive in separate batches each was pushed, so
/// every follower got the same content twice (the fault suite counted these as "same payload, new
/// apns-id"). A plain update after them carries nothing new for ActivityKit, so it is skipped.
///
/// Key events (priority 10: their alert is the point) and end events are never skipped. What is
/// remembered is what was fanned out successfully; after a restart the memory is empty and the
/// worst case is the old behaviour, one redundant push. At most `capacity` matches are
/// remembered (an ended match is forgotten); past it, the memory starts over.
public final class RepeatedUpdateFilter: Sendable {
    private struct Pushed {
        var seq: Int64
        var emittedAt: Int64
        var displayState: UnifiedDisplayState
    }

    private let capacity: Int
    private let pushed = LockedValue<[String: Pushed]>([:])

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// True when `event` is a plain update, newer than the match's last fanned-out event, with the
    /// same display state and `emittedAt`: pushing it would send followers nothing new.
    public func isRepeat(_ event: MatchBusEvent) -> Bool {
        guard !LatestWins.isProtected(event) else { return false }
        return pushed.withLock { pushed in
            guard let last = pushed[event.matchId] else { return false }
            return event.seq > last.seq && event.emittedAt == last.emittedAt && event.displayState == last.displayState
        }
    }

    /// Records that `event` was fanned out (forgets the match when the event ends it).
    public func fannedOut(_ event: MatchBusEvent) {
        pushed.withLock { pushed in
            if event.endsMatch {
                pushed[event.matchId] = nil
                return
            }
            if let last = pushed[event.matchId], last.seq > event.seq { return }
            if pushed[event.matchId] == nil, pushed.count >= capacity { pushed.removeAll(keepingCapacity: true) }
            pushed[event.matchId] = Pushed(seq: event.seq, emittedAt: event.emittedAt, displayState: event.displayState)
        }
    }

    /// Matches remembered now.
    public var count: Int { pushed.withLock { $0.count } }
}
