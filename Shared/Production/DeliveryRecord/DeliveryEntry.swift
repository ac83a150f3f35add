import Contracts

/// What a push did on the device, as support names it.
public enum DeliveryKind: String, Codable, Sendable, CaseIterable {
    /// A push-to-start (`liveactivity-start`).
    case start
    /// A silent score update (priority 5).
    case update
    /// An update with an alert (priority 10): wicket, fifty, result…
    case keyEvent = "key_event"
    /// An end (`liveactivity-end`): the match's end, a day's close, an unfollow, a dismiss, a rollover.
    case end
    /// A plain alert to the device token.
    case alert
    /// A background push to the device token (ends a channel activity).
    case background

    /// The kind of a job of `kind` at `priority`.
    public init(_ kind: PushKind, priority: Int) {
        switch kind {
        case .liveActivityStart: self = .start
        case .liveActivityEnd: self = .end
        case .liveActivityUpdate: self = priority >= 10 ? .keyEvent : .update
        case .alert: self = .alert
        case .background: self = .background
        }
    }
}

/// One push to one Live Activity (or one broadcast to a channel) in the delivery record: what was sent and what APNs
/// said, as readers see it (stored as a `DeliverySlot` and its job's `DeliveryJob`); the token only masked.
public struct DeliveryEntry: Codable, Sendable, Equatable {
    public var kind: DeliveryKind
    /// The job id (its apns-id is derived from it and the token).
    public var job: String
    /// The display state's sequence number (the match event's `seq`; 0 for a state built from the schedule).
    public var seq: Int64
    public var result: PushResult
    public var status: Int?
    public var reason: String?
    public var apnsId: String?
    /// `TokenMask.mask` of the token (or channel id) pushed to.
    public var token: String
    /// The content's `aps.timestamp` (Unix seconds).
    public var timestamp: Int64?
    /// When APNs answered (Unix ms); nil when never sent.
    public var at: Int64?
    /// When the job finished (Unix ms): orders entries.
    public var finishedAt: Int64
    /// APNs acceptance minus the poll that saw the content (ms), for accepted pushes whose content time is known.
    public var freshnessMs: Int64?
    public var tries: Int
    public var priority: Int
    /// When the job was created (Unix ms).
    public var createdAt: Int64
    /// The payload trimming step (1, 2) when the content was trimmed to fit 4 KB.
    public var trimStep: Int?

    public init(kind: DeliveryKind, job: String, seq: Int64, result: PushResult, status: Int?, reason: String?, apnsId: String?, token: String,
                timestamp: Int64?, at: Int64?, finishedAt: Int64, freshnessMs: Int64?, tries: Int, priority: Int, createdAt: Int64,
                trimStep: Int? = nil) {
        self.kind = kind
        self.job = job
        self.seq = seq
        self.result = result
        self.status = status
        self.reason = reason
        self.apnsId = apnsId
        self.token = token
        self.timestamp = timestamp
        self.at = at
        self.finishedAt = finishedAt
        self.freshnessMs = freshnessMs
        self.tries = tries
        self.priority = priority
        self.createdAt = createdAt
        self.trimStep = trimStep
    }

    /// The entry of `result` in `outcome`.
    public init(_ outcome: PushOutcome, _ result: PushTargetResult) {
        var freshness: Int64?
        if result.result == .accepted, let at = result.at, let knownAt = outcome.knownAt {
            let (difference, overflow) = at.subtractingReportingOverflow(knownAt)
            if !overflow { freshness = max(0, difference) }
        }
        self.init(kind: DeliveryKind(outcome.kind, priority: outcome.priority), job: outcome.jobId, seq: outcome.stateSeq, result: result.result,
                  status: result.status, reason: result.reason, apnsId: result.apnsId, token: result.token, timestamp: outcome.contentTimestamp,
                  at: result.at, finishedAt: outcome.finishedAt, freshnessMs: freshness, tries: result.tries, priority: outcome.priority,
                  createdAt: outcome.createdAt, trimStep: outcome.trimStep)
    }
}
