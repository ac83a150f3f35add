/// One APNs payload for up to 1,000 targets, or for one broadcast channel. Topic `push.jobs`, key
/// "matchId:shard" so that one token's pushes stay in order on one partition (a broadcast job: "matchId:bc:env",
/// one channel on one partition).
public struct PushJob: VersionedMessage, Equatable {
    /// 2: `seq` split into `stateSeq` and `startAttempt` (it meant three things). 3: `channel` (a broadcast job,
    /// no targets). A token job is still written as schema 2, which the release before broadcast reads; a
    /// broadcast job is 3, which that release refuses (dead-lettered, never silently taken for an empty job).
    public static let currentSchema = 3
    public static let acceptedSchemas = 2...3
    public static let topic = Topic.pushJobs
    /// At most this many targets per job.
    public static let maximumTargets = 1000

    public var schema: Int
    /// Deterministic: the same event and shard give the same jobId.
    public var jobId: String
    public var kind: PushKind
    public var matchId: String
    /// The per-match sequence of the display state the payload shows (the `match.events` seq, which is
    /// `active_matches.seq`); 0 when the payload was built from the schedule card.
    public var stateSeq: Int64
    /// For a liveactivity-start: which start of its (match, user, device) row this is (`start_attempts`); nil
    /// for updates and ends.
    public var startAttempt: Int?
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
    /// A broadcast job's channel (then `targets` is empty): one request to APNs reaches every subscriber.
    public var channel: PushChannel?
    /// When the payload's content became known, Unix epoch milliseconds: its event's `emittedAt` (the snapshot's
    /// poll). apns-sender's `push_freshness_seconds` is APNs's 200 minus this. nil for pushes built from stored state
    /// (starts, rollovers, background ends).
    public var knownAt: Int64?
    /// The feed's time of the newest ball behind the content (`MatchBusEvent.ballAt`), when known.
    public var ballAt: Int64?
    /// The payload trimming step that made the content fit in 4,096 bytes (1, 2: `PayloadTrimmer`); nil when it fit as is.
    /// Carried into the delivery record, where support sees "payload trimmed". Optional, so either release reads the other's jobs.
    public var trimStep: Int?

    public init(
        jobId: String, kind: PushKind, matchId: String, stateSeq: Int64, startAttempt: Int? = nil, priority: Int,
        expiration: Int64, relevanceScore: Double?, payload: String, targets: [PushTarget], createdAt: Int64, attempt: Int = 0,
        channel: PushChannel? = nil, knownAt: Int64? = nil, ballAt: Int64? = nil, trimStep: Int? = nil
    ) {
        // Schema 3 only for the shapes the release before broadcast cannot take (a broadcast, a background push).
        self.schema = channel == nil && kind != .background ? 2 : 3
        self.channel = channel
        self.jobId = jobId
        self.kind = kind
        self.matchId = matchId
        self.stateSeq = stateSeq
        self.startAttempt = startAttempt
        self.priority = priority
        self.expiration = expiration
        self.relevanceScore = relevanceScore
        self.payload = payload
        self.targets = targets
        self.createdAt = createdAt
        self.attempt = attempt
        self.knownAt = knownAt
        self.ballAt = ballAt
        self.trimStep = trimStep
    }

    /// The Kafka key: "matchId:shard".
    public static func key(matchId: String, shard: Int) -> String { "\(matchId):\(shard)" }

    /// A broadcast job's Kafka key: "matchId:bc:env" (one channel's broadcasts in order on one partition).
    public static func broadcastKey(matchId: String, environment: APNsEnvironment) -> String { "\(matchId):bc:\(environment.rawValue)" }
}

/// The broadcast channel of a broadcast job.
public struct PushChannel: Codable, Sendable, Equatable, Hashable {
    /// `apns-channel-id` (opaque base64).
    public var channelId: String
    public var env: APNsEnvironment
    /// The channel's message storage policy: 0 (No Message Stored: sent with `apns-expiration` 0) or 1.
    public var storagePolicy: Int

    public init(channelId: String, env: APNsEnvironment, storagePolicy: Int) {
        self.channelId = channelId
        self.env = env
        self.storagePolicy = storagePolicy
    }
}

/// What a push does on the device.
public enum PushKind: String, Codable, Sendable, CaseIterable {
    case liveActivityUpdate = "liveactivity-update"
    case liveActivityEnd = "liveactivity-end"
    case liveActivityStart = "liveactivity-start"
    case alert
    /// A background notification to a device's own token (`apns-push-type: background`, priority 5): the app
    /// ends a channel activity the server cannot end by push (`BackgroundEndPayload`).
    case background
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
