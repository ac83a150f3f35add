import Contracts

/// Latest-wins coalescing of a batch of match events that queued up before fan-out.
///
/// A plain update (not priority 10, not an end) is dropped when the same batch already holds a newer
/// event (higher `seq`) of the same match: the newer one carries a newer display state, and ActivityKit
/// would show only the newest anyway. Key events (priority ≥ 10) and end events (a match's or a day's) are never dropped.
public enum LatestWins {
    /// True when `event` must be fanned out even if a newer one is queued.
    public static func isProtected(_ event: MatchBusEvent) -> Bool {
        event.endsActivities || (event.keyEvent?.priority ?? 0) >= 10
    }

    /// One flag per event, in input order: true to fan it out, false when it is coalesced away.
    /// A second copy of the same (matchId, seq) in the batch (a redelivery) is dropped too.
    public static func keep(_ events: [MatchBusEvent]) -> [Bool] {
        var newest: [String: Int64] = [:]
        for event in events {
            newest[event.matchId] = max(newest[event.matchId] ?? .min, event.seq)
        }
        var seen: Set<SeqKey> = []
        return events.map { event in
            guard seen.insert(SeqKey(matchId: event.matchId, seq: event.seq)).inserted else { return false }
            return isProtected(event) || event.seq >= (newest[event.matchId] ?? .min)
        }
    }

    private struct SeqKey: Hashable {
        let matchId: String
        let seq: Int64
    }
}
