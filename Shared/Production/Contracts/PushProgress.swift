/// What apns-sender knows for certain about one job message while and after it sends it: some of its targets got a
/// final APNs answer (`answered`), or the whole message is final and its results are on their topics (`done`).
/// Topic `push.progress`, key "jobsTopic:partition:offset", produced to partition `jobs partition mod progress
/// partitions`, so the member that takes over a jobs partition reads one progress partition.
///
/// Marks are facts, never intentions: a reader takes the union of all marks of a message, so a mark written twice,
/// by two members or by a member that lost its partition, cannot be wrong; a mark lost or not yet written only costs
/// a push sent again (at least once stays intact). A mark names its job message by topic, partition, offset and the
/// message's Kafka timestamp, so a mark of a recreated topic's reused offset does not match.
public struct PushProgress: VersionedMessage, Equatable {
    public static let currentSchema = 1
    public static let topic = Topic.pushProgress

    /// A mark's kind.
    public enum Kind: String, Codable, Sendable {
        /// Some targets got a final answer (listed); the job may still be running.
        case answered
        /// The message is final: its outcome, token-invalid and dead records are acknowledged (or it was skipped).
        case done
    }

    /// A target APNs refused for good because of its token (410, 400 BadDeviceToken): the replay produces its
    /// `TokenInvalid` without sending to it again.
    public struct Refusal: Codable, Sendable, Equatable {
        /// Index into the job's targets.
        public var index: Int
        public var status: Int
        public var reason: String
        /// For 410: when APNs learned the token was invalid, Unix epoch milliseconds.
        public var apnsTimestamp: Int64?

        public init(index: Int, status: Int, reason: String, apnsTimestamp: Int64?) {
            self.index = index
            self.status = status
            self.reason = reason
            self.apnsTimestamp = apnsTimestamp
        }
    }

    public var schema: Int
    public var kind: Kind
    /// The job message: its topic, partition and offset, and its Kafka timestamp (Unix epoch milliseconds).
    public var jobsTopic: String
    public var partition: Int32
    public var offset: Int64
    public var messageTimestamp: Int64
    /// The job's id, when the message was a job (for logs).
    public var jobId: String?
    /// For a job that follows the per-device order (a token job's update or end): its Kafka key ("matchId:shard").
    /// With `stateSeq`, a reader knows that state reached (some of) the key's devices before it starts an older one.
    public var orderKey: String?
    /// For a broadcast job: its channel (the same, for the channel's latest-wins).
    public var channelId: String?
    /// The job's `stateSeq`, with `orderKey` or `channelId`.
    public var stateSeq: Int64?
    /// Target indices APNs accepted (200), as half-open ranges `[from, to)`.
    public var accepted: [[Int]]
    public var refused: [Refusal]
    /// When the mark was written, Unix epoch milliseconds.
    public var at: Int64

    public init(kind: Kind, jobsTopic: String, partition: Int32, offset: Int64, messageTimestamp: Int64, jobId: String?,
                orderKey: String? = nil, channelId: String? = nil, stateSeq: Int64? = nil,
                accepted: [Range<Int>] = [], refused: [Refusal] = [], at: Int64) {
        self.schema = Self.currentSchema
        self.kind = kind
        self.jobsTopic = jobsTopic
        self.partition = partition
        self.offset = offset
        self.messageTimestamp = messageTimestamp
        self.jobId = jobId
        self.orderKey = orderKey
        self.channelId = channelId
        self.stateSeq = stateSeq
        self.accepted = accepted.map { [$0.lowerBound, $0.upperBound] }
        self.refused = refused
        self.at = at
    }

    /// The mark's Kafka key.
    public var key: String { "\(jobsTopic):\(partition):\(offset)" }

    /// The accepted indices as ranges; nil when a range is malformed (not two ascending, non-negative bounds) or
    /// reaches past `targetCount`.
    public func acceptedRanges(targetCount: Int) -> [Range<Int>]? {
        var ranges: [Range<Int>] = []
        for pair in accepted {
            guard pair.count == 2, pair[0] >= 0, pair[0] <= pair[1], pair[1] <= targetCount else { return nil }
            ranges.append(pair[0]..<pair[1])
        }
        return ranges
    }

    /// Sorted indices as the fewest half-open ranges: [0, 1, 2, 5] → [0..<3, 5..<6].
    public static func ranges(of sortedIndices: [Int]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        for index in sortedIndices {
            if let last = ranges.last, last.upperBound == index {
                ranges[ranges.count - 1] = last.lowerBound..<(index + 1)
            } else {
                ranges.append(index..<(index + 1))
            }
        }
        return ranges
    }

    /// The progress partition a jobs partition's marks go to.
    public static func progressPartition(forJobsPartition partition: Int32, progressPartitions: Int) -> Int32 {
        guard progressPartitions > 0, partition >= 0 else { return 0 }
        return partition % Int32(progressPartitions)
    }
}
