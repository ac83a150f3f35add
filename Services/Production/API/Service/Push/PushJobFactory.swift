import Contracts
import Foundation

/// Builds the api's push jobs (payloads from `Contracts.LiveActivityPayload`): one job per target device (each token has its own shard key).
///
/// Job ids are deterministic so that a redelivered or repeated request yields the same id:
/// - start: `start:{matchId}:{userId}:{deviceId}:{startAttempt}` — a new attempt number only when the
///   row really starts again (new/ended row, or a pending row older than the resend window);
/// - end: `end:{matchId}:{userId}:{deviceId}:{reason}:{first 16 hex of the update token}`.
struct PushJobFactory: Sendable {
    var shards: Int
    /// Seconds APNs may keep trying a push-to-start / an end push.
    var startExpiry: Int64 = 600
    var endExpiry: Int64 = 3600

    /// One device to start or end, with its token and environment.
    struct Target: Sendable {
        var userId: String
        var deviceId: String
        var token: String
        var env: APNsEnvironment
        /// The start attempt number (start jobs) or the end reason (end jobs).
        var discriminator: String
        /// A start's broadcast channel (a channel-capable device of a match with one): `input-push-channel`.
        var channelId: String? = nil
    }

    /// The start jobs of `targets`: one push-to-start per device, all with the payload of `state`
    /// (empty when it cannot be encoded).
    func startJobs(matchId: String, state: UnifiedDisplayState, seq: Int64, targets: [Target], now: Date) -> [PushJob] {
        guard let payload = startPayload(matchId: matchId, state: state, now: now) else { return [] }
        return startJobs(matchId: matchId, payload: payload, seq: seq, targets: targets, now: now)
    }

    /// The push-to-start body for `state` at `now` (to the second): `LiveActivityPayload.matchStart`,
    /// the builder the orchestrator uses too. Nil when it cannot be encoded (e.g. too large).
    func startPayload(matchId: String, state: UnifiedDisplayState, now: Date, channelId: String? = nil) -> String? {
        try? LiveActivityPayload.matchStart(state: state, timestamp: Int64(now.timeIntervalSince1970), channelId: channelId).jsonString()
    }

    /// The start jobs of `targets` with an already encoded `payload` (see `startPayload`).
    func startJobs(matchId: String, payload: String, seq: Int64, targets: [Target], now: Date) -> [PushJob] {
        let timestamp = Int64(now.timeIntervalSince1970)
        return targets.map { target in
            PushJob(
                jobId: PushJob.startJobId(matchId: matchId, userId: target.userId, deviceId: target.deviceId, attempt: target.discriminator),
                kind: .liveActivityStart,
                matchId: matchId, stateSeq: seq, startAttempt: Int(target.discriminator), priority: 10,
                expiration: timestamp + startExpiry, relevanceScore: nil,
                payload: payload, targets: [PushTarget(token: target.token, env: target.env, userId: target.userId, deviceId: target.deviceId)],
                createdAt: Int64(now.timeIntervalSince1970 * 1000))
        }
    }

    func endJobs(matchId: String, state: UnifiedDisplayState, seq: Int64, targets: [Target], now: Date) -> [PushJob] {
        let timestamp = Int64(now.timeIntervalSince1970)
        // "end" with a dismissal date of now: the activity leaves the Lock Screen at once.
        guard let payload = try? LiveActivityPayload.dismissedNow(state: state, timestamp: timestamp).jsonString() else { return [] }
        return targets.map { target in
            PushJob(
                jobId: "end:\(matchId):\(target.userId):\(target.deviceId):\(target.discriminator):\(target.token.prefix(16))",
                kind: .liveActivityEnd, matchId: matchId, stateSeq: seq, priority: 10, expiration: timestamp + endExpiry,
                relevanceScore: nil, payload: payload,
                targets: [PushTarget(token: target.token, env: target.env, userId: target.userId, deviceId: target.deviceId)],
                createdAt: Int64(now.timeIntervalSince1970 * 1000))
        }
    }

    /// Background pushes asking the app to end its channel activity of `matchId` (`BackgroundEndPayload`): priority 5
    /// (APNs takes background pushes at 5 only), to each device's own push token.
    func backgroundEndJobs(matchId: String, reason: String, targets: [Target], now: Date) -> [PushJob] {
        let timestamp = Int64(now.timeIntervalSince1970)
        let payload = BackgroundEndPayload.json(matchId: matchId, reason: reason)
        return targets.map { target in
            PushJob(
                jobId: "bgend:\(matchId):\(target.userId):\(target.deviceId):\(target.discriminator)", kind: .background, matchId: matchId,
                stateSeq: 0, priority: 5, expiration: timestamp + endExpiry, relevanceScore: nil, payload: payload,
                targets: [PushTarget(token: target.token, env: target.env, userId: target.userId, deviceId: target.deviceId)],
                createdAt: Int64(now.timeIntervalSince1970 * 1000))
        }
    }

    /// The Kafka key of a single-target job.
    func key(of job: PushJob) -> String {
        PushJob.key(matchId: job.matchId, shard: PushSharding.shard(token: job.targets.first?.token ?? "", shards: shards))
    }
}
