/// One APNs payload for up to 1,000 targets. Topic `push.jobs`, key "matchId:shard" so that one
/// token's pushes stay in order on one partition.
public struct PushJob: VersionedMessage, Equatable {
    public static let currentSchema = 1
    public static let topic = Topic.pushJobs
    /// At most this many targets per job.
    public static let maximumTargets = 1000

    public var schema: Int
    /// Deterministic: the same event and shard give the same jobId.
    public var jobId: String
    public var kind: PushKind
    public var matchId: String
    public var seq: Int64
    /// 10 (immediate, alert) or 5 (silent, budget-free).
    public var priority: Int
    /// Unix epoch seconds after which APNs need not deliver (`apns-expiration`); retries stop then too.
    public var expiration: Int64
    public var relevanceScore: Double?
    /// The exact APNs JSON body, ≤ 4,096 bytes.
    public var payload: String
    public var targets: [PushTarget]
    /// Unix epoch milliseconds.
    public var createdAt: Int64
    /// How many times this job was re-queued after a failure.
    public var attempt: Int

    public init(
        jobId: String, kind: PushKind, matchId: String, seq: Int64, priority: Int, expiration: Int64,
        relevanceScore: Double?, payload: String, targets: [PushTarget], createdAt: Int64, attempt: Int = 0
    ) {
        self.schema = Self.currentSchema
        self.jobId = jobId
        self.kind = kind
        self.matchId = matchId
        self.seq = seq
        self.priority = priority
        self.expiration = expiration
        self.relevanceScore = relevanceScore
        self.payload = payload
        self.targets = targets
        self.createdAt = createdAt
        self.attempt = attempt
    }

    /// The Kafka key: "matchId:shard".
    public static func key(matchId: String, shard: Int) -> String { "\(matchId):\(shard)" }
}

/// What a push does on the device.
public enum PushKind: String, Codable, Sendable, CaseIterable {
    case liveActivityUpdate = "liveactivity-update"
    case liveActivityEnd = "liveactivity-end"
    case liveActivityStart = "liveactivity-start"
    case alert
}

/// APNs environment of a device token.
public enum APNsEnvironment: String, Codable, Sendable, CaseIterable {
    case sandbox
    case production
}

/// One device to push to.
public struct PushTarget: Codable, Sendable, Equatable, Hashable {
    /// Hex APNs token (update token, push-to-start token or device token, by the job's kind).
    public var token: String
    public var env: APNsEnvironment
    public var userId: String
    public var deviceId: String

    public init(token: String, env: APNsEnvironment, userId: String, deviceId: String) {
        self.token = token
        self.env = env
        self.userId = userId
        self.deviceId = deviceId
    }
}
