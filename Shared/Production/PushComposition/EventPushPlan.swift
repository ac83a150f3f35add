import Contracts

/// Everything about one match event's pushes except the targets: built once per event, then stamped
/// onto every job of the fan-out.
///
/// Deterministic: the same event gives the same payload bytes (timestamp = `emittedAt` in seconds,
/// stale/dismissal dates from it) and the same job ids ("eventId:shard:chunk"), so a replay after a
/// crash sends the same `apns-id`s (derived by apns-sender from jobId and token). Only `createdAt`
/// and `expiration` depend on the clock.
public struct EventPushPlan: Sendable, Equatable {
    public let eventId: String
    public let matchId: String
    public let seq: Int64
    /// liveactivity-end when the event ends the match or a day of play, else liveactivity-update.
    public let kind: PushKind
    /// 10 for key events (priority ≥ 10) and end events, else 5.
    public let priority: Int
    public let relevanceScore: Double?
    /// The exact APNs body (≤ 4,096 bytes).
    public let payload: String
    /// 0 when the payload fit as is; otherwise the trimming step (1, 2) that made it fit.
    public let trimStep: Int
    /// Seconds from job creation until `apns-expiration`.
    public let expiresAfter: Int64
    /// When the content became known (the event's `emittedAt`) and the feed's newest-ball time: stamped on every job.
    public let knownAt: Int64
    public let ballAt: Int64?

    /// Builds the payload (trimming the state if it is over 4,096 bytes) and the push parameters.
    /// - Throws: `LiveActivityPayloadError` when even the most trimmed payload does not fit or cannot be encoded.
    public init(event: MatchBusEvent, policy: PushPolicy) throws(LiveActivityPayloadError) {
        let payload = LiveActivityPayload.forEvent(event, staleAfter: policy.staleAfter, breakStaleAfter: policy.breakStaleAfter,
                                                   dismissAfter: policy.dismissAfter,
                                                   closeOfPlayDismissAfter: policy.closeOfPlayDismissAfter)
        var text: String
        var step = 0
        do {
            text = try payload.jsonString()
        } catch .tooLarge(let matchId, let bytes, let limit) {
            var lastError = LiveActivityPayloadError.tooLarge(matchId: matchId, bytes: bytes, limit: limit)
            var fitted: String?
            for index in PayloadTrimmer.steps.indices where fitted == nil {
                do {
                    fitted = try PayloadTrimmer.trimmed(payload, step: index).jsonString()
                    step = index + 1
                } catch {
                    lastError = error
                }
            }
            guard let fitted else { throw lastError }
            text = fitted
        }
        let isKey = (event.keyEvent?.priority ?? 0) >= 10
        eventId = event.eventId
        matchId = event.matchId
        seq = event.seq
        kind = event.endsActivities ? .liveActivityEnd : .liveActivityUpdate
        priority = event.endsActivities || isKey ? 10 : 5
        relevanceScore = payload.relevanceScore
        self.payload = text
        trimStep = step
        expiresAfter = event.endsActivities ? policy.endExpiration : isKey ? policy.keyEventExpiration : policy.updateExpiration
        knownAt = event.emittedAt
        ballAt = event.ballAt
    }

    /// "eventId:shard:chunk".
    public func jobId(shard: Int, chunk: Int) -> String { PushJobID.event(eventId: eventId, shard: shard, chunk: chunk) }

    /// The Kafka key of a shard's jobs: "matchId:shard".
    public func key(shard: Int) -> String { PushJob.key(matchId: matchId, shard: shard) }

    /// The token job of chunk `chunk` of `shard`, to `targets`.
    /// - Parameter nowMilliseconds: Unix epoch milliseconds (createdAt; expiration counts from it).
    public func job(shard: Int, chunk: Int, targets: [PushTarget], nowMilliseconds: Int64) -> PushJob {
        job(id: jobId(shard: shard, chunk: chunk), targets: targets, channel: nil, nowMilliseconds: nowMilliseconds)
    }

    /// A job of this event: everything but the id, the targets and the channel is the plan's.
    private func job(id: String, targets: [PushTarget], channel: PushChannel?, nowMilliseconds: Int64) -> PushJob {
        PushJob(jobId: id, kind: kind, matchId: matchId, stateSeq: seq, priority: priority,
                expiration: nowMilliseconds / 1000 + expiresAfter, relevanceScore: relevanceScore, payload: payload,
                targets: targets, createdAt: nowMilliseconds, channel: channel, knownAt: knownAt, ballAt: ballAt,
                trimStep: trimStep == 0 ? nil : trimStep)
    }

    /// "eventId:bc:env:generation": one broadcast job per channel (a re-created channel is a new generation).
    public func broadcastJobId(environment: APNsEnvironment, generation: Int) -> String {
        PushJobID.broadcast(eventId: eventId, environment: environment, generation: generation)
    }

    /// The broadcast job for one channel of the match: the same payload as the token jobs (one body, one
    /// `timestamp` on both paths), no targets.
    public func broadcastJob(channelId: String, environment: APNsEnvironment, storagePolicy: Int, generation: Int,
                             nowMilliseconds: Int64) -> PushJob {
        job(id: broadcastJobId(environment: environment, generation: generation), targets: [],
            channel: PushChannel(channelId: channelId, env: environment, storagePolicy: storagePolicy), nowMilliseconds: nowMilliseconds)
    }
}
