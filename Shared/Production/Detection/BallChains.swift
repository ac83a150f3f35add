import Cricket
import Synchronization
import Runtime

/// Why a match's ball set could not be rebuilt.
public enum BallChainError: Error, Equatable, CustomStringConvertible {
    /// The poller's ball history, as of `seq`, does not hold the `expected` deliveries the snapshot counts.
    case incompleteHistory(matchId: String, seq: Int64, expected: Int, found: Int)

    public var description: String {
        switch self {
        case .incompleteHistory(let matchId, let seq, let expected, let found):
            "match \(matchId): the ball history as of snapshot \(seq) has \(found) deliveries, the snapshot counts \(expected)"
        }
    }

    /// A metric label.
    public var kind: String { "incomplete_ball_history" }
}

/// The deliveries of each match as of its latest snapshot, rebuilt from the chain of `sportmonks.fixtures`
/// messages (each carries only what changed since its `basis`). Turns each message back into the whole
/// fixture the detector works on.
///
/// In memory, for the `capacity` most recently seen matches. A message that does not follow the remembered
/// link (after a restart, a rebalance, or a skipped message) asks for the history (`restore`), which the
/// caller reads from the poller's `feed_balls` as of the message's `seq`. Sharing it is safe (one lock).
public final class BallChains: Sendable {
    /// What a message turned into.
    public enum Step: Sendable {
        /// The last page of a poll: the whole fixture, balls in delivery order.
        case assembled(SportMonksFixture)
        /// A page of a poll whose later pages follow: applied, nothing to detect yet.
        case pending
        /// The message does not follow what is remembered: call `restore` with the history as of its `seq`.
        case needsHistory
    }

    private struct Chain {
        var seq: Int64
        var balls: [Int: SportMonksBall]
        var lastUse: UInt64
    }

    private struct Table {
        var chains: [String: Chain] = [:]
        var clock: UInt64 = 0
    }

    /// How many matches are remembered.
    public let capacity: Int
    private let table: LockedValue<Table>

    public init(capacity: Int = 128) {
        self.capacity = max(1, capacity)
        table = LockedValue(Table())
    }

    /// Applies `snapshot` to its match's remembered chain when it follows it (or starts a full list).
    public func apply(_ snapshot: SnapshotDecoding.Decoded) -> Step {
        table.withLock { table in
            var balls: [Int: SportMonksBall]
            if snapshot.basis == 0 {
                balls = [:]
            } else if table.chains[snapshot.matchId]?.seq == snapshot.basis {
                // Taken out of the table, so the set is changed in place rather than copied.
                balls = table.chains.removeValue(forKey: snapshot.matchId)?.balls ?? [:]
            } else {
                return .needsHistory
            }
            for id in snapshot.removedBallIds { balls[id] = nil }
            for ball in snapshot.balls ?? [] { balls[ball.id] = ball }
            guard balls.count == snapshot.ballCount else {
                table.chains[snapshot.matchId] = nil
                return .needsHistory
            }
            return Self.store(&table, capacity: capacity, snapshot, balls)
        }
    }

    /// Replaces the match's chain with `history`, its deliveries as of `snapshot.seq` (that page applied).
    /// - Throws: `BallChainError.incompleteHistory` when the history does not hold the deliveries the snapshot
    ///   counts (the chain is forgotten; the next message asks again).
    public func restore(_ snapshot: SnapshotDecoding.Decoded, history: [SportMonksBall]) throws(BallChainError) -> Step {
        let balls = Dictionary(history.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        return try table.withLock { table throws(BallChainError) in
            guard balls.count == snapshot.ballCount else {
                table.chains[snapshot.matchId] = nil
                throw .incompleteHistory(matchId: snapshot.matchId, seq: snapshot.seq, expected: snapshot.ballCount,
                                         found: balls.count)
            }
            return Self.store(&table, capacity: capacity, snapshot, balls)
        }
    }

    /// Forgets a match (it ended).
    public func forget(_ matchId: String) {
        _ = table.withLock { $0.chains.removeValue(forKey: matchId) }
    }

    /// Matches remembered.
    public var count: Int { table.withLock { $0.chains.count } }

    private static func store(_ table: inout Table, capacity: Int, _ snapshot: SnapshotDecoding.Decoded,
                              _ balls: [Int: SportMonksBall]) -> Step {
        table.clock += 1
        if table.chains[snapshot.matchId] == nil, table.chains.count >= capacity,
           let oldest = table.chains.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            table.chains[oldest] = nil
        }
        table.chains[snapshot.matchId] = Chain(seq: snapshot.seq, balls: balls, lastUse: table.clock)
        guard snapshot.complete else { return .pending }
        var fixture = snapshot.fixture
        fixture.balls = snapshot.balls == nil ? nil : balls.values.sorted { $0.id < $1.id }
        return .assembled(fixture)
    }
}
