/// Decides when a consumer-group member is stranded: subscribed, yet outside its group while the group has work.
///
/// librdkafka rejoins a group by itself after a lost session, and on Apache Kafka it normally does. The watch is
/// the guard for what nobody foresaw: a member that has held no partitions for longer than `bound` while the
/// broker reports lag on its topics, and in that time either the group had no member at all or no lagging
/// partition's committed offset moved (nobody else is doing the work), is stranded. ``KafkaConsumer`` then reports
/// itself not ready and rebuilds its librdkafka client. A member that merely has nothing assigned because the
/// group has more members than partitions is never stranded: the owners' commits move.
///
/// Pure logic with the time passed in; the consumer feeds it its assignment on every poll and the broker's view
/// (``KafkaAdmin`` group reads) as often as it reads them.
public struct KafkaMembershipWatch: Sendable {
    /// The watch's conclusion.
    public enum Verdict: Sendable, Equatable {
        case member
        /// Stranded, for `reason` (for logs and the readiness probe).
        case stranded(reason: String)
    }

    /// How long a member may hold no partitions while its group's work stands still.
    public let bound: Duration
    /// Rebuilds since the member last held partitions: each doubles the bound (at most 8×), so a member whose
    /// rebuilt client needs longer to join is not rebuilt again and again.
    private var strikes = 0
    private var emptySince: ContinuousClock.Instant?
    /// The committed offsets of the first sample in the current empty period.
    private var baseline: [KafkaTopicPartition: Int64?]?

    public init(bound: Duration) {
        self.bound = bound
    }

    /// Records whether the member holds partitions at `now`.
    public mutating func observe(holdsPartitions: Bool, now: ContinuousClock.Instant) {
        if holdsPartitions {
            reset()
            strikes = 0
        } else if emptySince == nil {
            emptySince = now
        }
    }

    /// Takes the broker's view (`lag` nil: it could not be read, no conclusion then; `group` nil: the broker does not
    /// describe groups, the commits alone decide) and concludes.
    public mutating func sampled(lag: [KafkaPartitionLag]?, group: KafkaGroupDescription?, now: ContinuousClock.Instant) -> Verdict {
        guard let emptySince, let lag else { return .member }
        let lagging = lag.filter { $0.lag > 0 }
        let committed = Dictionary(uniqueKeysWithValues: lag.map { ($0.topicPartition, $0.committed) })
        let stalled = baseline.map { baseline in lagging.allSatisfy { (baseline[$0.topicPartition] ?? nil) == $0.committed } } ?? false
        if !stalled { baseline = committed }
        // Only a real broker's "Empty" is trusted as "no member" (Tansu describes every group as Dead with no member).
        let noMember = group.map { $0.members == 0 && $0.state == "Empty" } ?? false
        guard !lagging.isEmpty, now - emptySince >= currentBound, noMember || stalled else { return .member }
        let total = lagging.reduce(Int64(0)) { $0 + $1.lag }
        let who = noMember ? "the group has no member (Empty)" : "no lagging partition's commit moved"
        return .stranded(reason: "held no partitions for \(now - emptySince) while the group's lag is \(total) and \(who)")
    }

    /// The bound now: doubled for every rebuild since the member last held partitions, at most 8×.
    public var currentBound: Duration { bound * (1 << min(strikes, 3)) }

    /// After a rebuild: starts the empty period over with a doubled bound.
    public mutating func rebuilt() {
        reset()
        strikes += 1
    }

    /// Starts over (after an assignment).
    public mutating func reset() {
        emptySince = nil
        baseline = nil
    }
}
