/// What became of one push job: the final answer for each of its targets (or its broadcast channel). Topic
/// `push.outcomes`, key = the job's key (so one device's outcomes stay on one partition, in order); apns-sender →
/// la-coordinator's delivery recorder, which folds them into `push_deliveries` (the per-activity delivery record
/// support reads). Produced with the job's other results (token-invalid, dead), before the job's offset is committed.
/// Written by `PushOutcomeEncoder` (hand-written, byte-identical to `MessageCodec.encode`): it costs apns-sender well
/// under a microsecond per target.
public struct PushOutcome: VersionedMessage, Equatable {
    public static let currentSchema = 1
    public static let topic = Topic.pushOutcomes

    public var schema: Int
    public var jobId: String
    public var kind: PushKind
    public var matchId: String
    /// The job's `stateSeq`.
    public var stateSeq: Int64
    public var priority: Int
    /// The payload's `aps.timestamp` (Unix seconds): what ActivityKit orders updates by. nil when it has none.
    public var contentTimestamp: Int64?
    /// The job's `knownAt` (when the content was first seen, Unix ms), for freshness.
    public var knownAt: Int64?
    /// The job's `createdAt` (Unix ms).
    public var createdAt: Int64
    /// When the last target got its final answer (Unix ms).
    public var finishedAt: Int64
    /// The job's re-drive count (`PushJob.attempt`).
    public var jobAttempt: Int
    /// The job's `trimStep`: the content was trimmed to fit APNs's 4 KB.
    public var trimStep: Int?
    /// A broadcast job's channel; then `results` holds one entry with empty user and device ids.
    public var channel: PushChannel?
    public var results: [PushTargetResult]
    /// Which sending of the job this is: unique per apns-sender process and job taken (`OutcomeSendIDs`), the same in a
    /// replayed message. With the job and `finishedAt` it is the outcome's identity in the delivery record, so two
    /// sendings of one job that finish in the same millisecond are both recorded. nil from a sender before it (0 there).
    public var sendId: Int64?

    public init(job: PushJob, contentTimestamp: Int64?, finishedAt: Int64, results: [PushTargetResult], sendId: Int64? = nil) {
        schema = Self.currentSchema
        jobId = job.jobId
        kind = job.kind
        matchId = job.matchId
        stateSeq = job.stateSeq
        priority = job.priority
        self.contentTimestamp = contentTimestamp
        knownAt = job.knownAt
        createdAt = job.createdAt
        self.finishedAt = finishedAt
        jobAttempt = job.attempt
        channel = job.channel
        trimStep = job.trimStep
        self.results = results
        self.sendId = sendId
    }
}

/// The final answer for one target of a job.
public struct PushTargetResult: Codable, Sendable, Equatable {
    public var userId: String
    public var deviceId: String
    /// `TokenMask.mask` of the token pushed to (or of the channel id): never the whole token.
    public var token: String
    public var result: PushResult
    /// The last HTTP status APNs answered (nil: no answer, or never sent).
    public var status: Int?
    /// APNs's reason, or the transport error, or why it was not sent.
    public var reason: String?
    /// The apns-id sent (the same on every attempt and on a replay).
    public var apnsId: String?
    /// Requests sent for this target (0: superseded or expired before sending).
    public var tries: Int
    /// When the final answer came (Unix ms); nil when never sent.
    public var at: Int64?

    public init(userId: String, deviceId: String, token: String, result: PushResult, status: Int?, reason: String?, apnsId: String?,
                tries: Int, at: Int64?) {
        self.userId = userId
        self.deviceId = deviceId
        self.token = token
        self.result = result
        self.status = status
        self.reason = reason
        self.apnsId = apnsId
        self.tries = tries
        self.at = at
    }
}

/// How a push ended.
public enum PushResult: String, Codable, Sendable, CaseIterable {
    /// APNs answered 200.
    case accepted
    /// APNs refused the token (410 Unregistered, 400 BadDeviceToken…) or the channel (ChannelNotRegistered).
    case refused
    /// Retries ran out, the push expired, or APNs refused it for good (400/403/413): on `push.dead`.
    case dead
    /// Not sent: a newer state for the device (or channel) went first, so this one would be dropped on the device anyway.
    case superseded
}
