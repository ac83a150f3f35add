/// `sportmonks.fixtures`: what the poller saw of one fixture, as a link in the match's chain of snapshots.
///
/// A snapshot carries the fixture as SportMonks served it **without its `balls` array** (the scoreboards,
/// batting, bowling, lineup and status: bounded by the number of players, not of deliveries) and, in `balls`,
/// only the deliveries that are new or changed since the snapshot numbered `basis` (`removedBallIds` lists
/// the ones that disappeared). Applying the snapshots of a match in `seq` order to an empty ball set
/// rebuilds the fixture exactly; `basis` 0 means "relative to nothing": the page starts a full list.
///
/// When a poll's changes do not fit in one message (the first poll of a match joined on day 4), the poller
/// splits them into pages with consecutive `seq`s; only the last has `complete` true. Every message is at most
/// ``maximumBytes``, whatever the length of the match (``FixtureSnapshotPager`` makes them). A consumer that
/// misses a link (its `seq` does not follow `basis`) rebuilds the ball set from the poller's ball history
/// (`feed_balls`, written before each publish) as of `seq`.
public struct FixtureSnapshot: VersionedMessage, Equatable {
    public static let currentSchema = 2
    public static let topic = Topic.fixtures
    /// The bound on an encoded snapshot: 256 KiB.
    public static let maximumBytes = 262_144

    public var schema: Int
    /// SportMonks fixture id, as text.
    public var matchId: String
    /// When the poller received it, Unix epoch milliseconds.
    public var polledAt: Int64
    /// This snapshot's place in the match's chain: 1, 2, … (counted by the poller, `feed_cursors`).
    public var seq: Int64
    /// The `seq` that `balls` and `removedBallIds` are relative to; 0: relative to nothing (a full list).
    public var basis: Int64
    /// False while more pages of the same poll follow (consumers apply it and wait for the last page).
    public var complete: Bool
    /// The fixture object exactly as SportMonks served it (the `data` member of the reply), minus `balls`.
    public var fixture: JSONValue
    /// Deliveries new or changed since `basis`, as served; nil when the fixture had no `balls` member (the
    /// include was not served), which leaves the ball set as it was.
    public var balls: [JSONValue]?
    /// Ids of deliveries gone since `basis`.
    public var removedBallIds: [Int]
    /// How many deliveries the fixture has once this page is applied (a check for the consumer).
    public var ballCount: Int

    public init(matchId: String, polledAt: Int64, seq: Int64, basis: Int64, complete: Bool, fixture: JSONValue,
                balls: [JSONValue]?, removedBallIds: [Int] = [], ballCount: Int) {
        self.schema = Self.currentSchema
        self.matchId = matchId
        self.polledAt = polledAt
        self.seq = seq
        self.basis = basis
        self.complete = complete
        self.fixture = fixture
        self.balls = balls
        self.removedBallIds = removedBallIds
        self.ballCount = ballCount
    }

    /// A standalone snapshot of a whole fixture (seq 1, basis 0, one page): its `balls` member moved to
    /// `balls`. For tests and tools that replay fixtures without a chain; the poller uses the pager.
    public init(matchId: String, polledAt: Int64, fixture: JSONValue) {
        let split = FixtureSnapshot.split(fixture)
        self.init(matchId: matchId, polledAt: polledAt, seq: 1, basis: 0, complete: true, fixture: split.rest,
                  balls: split.balls, ballCount: split.balls?.count ?? 0)
    }

    /// `fixture` without its `balls` member, and that member's elements (nil when absent or not an array).
    public static func split(_ fixture: JSONValue) -> (rest: JSONValue, balls: [JSONValue]?) {
        guard case .object(var members) = fixture else { return (fixture, nil) }
        let balls: [JSONValue]? = if case .array(let items)? = members["balls"] { items } else { nil }
        members["balls"] = nil
        return (.object(members), balls)
    }
}
