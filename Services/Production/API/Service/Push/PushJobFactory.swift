import Contracts
import Foundation
import PushComposition

/// The api's pushes (starts on a follow, ends on an unfollow or a dismissal, background ends of channel
/// activities), composed by `PushComposition.DevicePushComposer` (ids, priorities, expirations, bodies); this
/// type only maps the api's targets onto it and keys the jobs by shard.
struct PushJobFactory: Sendable {
    var shards: Int
    var composer: DevicePushComposer

    init(shards: Int, policy: PushPolicy = PushPolicy()) {
        self.shards = shards
        composer = DevicePushComposer(policy: policy)
    }

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

        func device(matchId: String) -> PushDevice {
            PushDevice(matchId: matchId, userId: userId, deviceId: deviceId, token: token, env: env)
        }
    }

    /// The start jobs of `targets`: one push-to-start per device, all with the payload of `state`
    /// (empty when it cannot be encoded).
    func startJobs(matchId: String, state: UnifiedDisplayState, seq: Int64, targets: [Target], now: Date) -> [PushJob] {
        guard let payload = startPayload(matchId: matchId, state: state, now: now) else { return [] }
        return startJobs(matchId: matchId, payload: payload, seq: seq, targets: targets, now: now)
    }

    /// The push-to-start body for `state` at `now` (to the second). Nil when it cannot be encoded (e.g. too large).
    func startPayload(matchId: String, state: UnifiedDisplayState, now: Date, channelId: String? = nil) -> String? {
        try? composer.startPayload(state: state, now: now, channelId: channelId)
    }

    /// The start jobs of `targets` with an already encoded `payload` (see `startPayload`).
    func startJobs(matchId: String, payload: String, seq: Int64, targets: [Target], now: Date) -> [PushJob] {
        targets.map { target in
            composer.start(target.device(matchId: matchId), attempt: Int(target.discriminator) ?? 1, payload: payload, stateSeq: seq, now: now)
        }
    }

    /// The end jobs of `targets` (their update tokens), dismissed at once; the discriminator is the end reason.
    func endJobs(matchId: String, state: UnifiedDisplayState, seq: Int64, targets: [Target], now: Date) -> [PushJob] {
        targets.compactMap { target in
            try? composer.end(target.device(matchId: matchId), reason: target.discriminator, state: state, stateSeq: seq, now: now)
        }
    }

    /// Background pushes asking the app to end its channel activity of `matchId`, to each device's own push token.
    func backgroundEndJobs(matchId: String, reason: String, targets: [Target], now: Date) -> [PushJob] {
        targets.map { composer.backgroundEnd($0.device(matchId: matchId), reason: reason, now: now) }
    }

    /// The Kafka key of a single-target job.
    func key(of job: PushJob) -> String {
        job.shardKey(shards: shards)
    }
}
