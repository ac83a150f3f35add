import Contracts
import PushComposition
import Foundation
import LiveActivities
import Postgres
import Matches

/// The api's follows: the follow, unfollow and dismiss flows over `FollowStore` (match_follows), `LiveActivityStore`
/// and `MatchStore`, and the start and end jobs they cause. Every call is for the caller's user id, so one user can
/// never see or change another's rows.
struct FollowFlow: Sendable {
    let store: FollowStore
    let activities: LiveActivityStore
    let matches: MatchStore
    let policy: FollowPolicy
    /// Decoded display states of the follow answers and start payloads.
    let displayStates = DisplayStateCache()

    init(database: PostgresClient, matches: MatchStore, policy: FollowPolicy) {
        store = FollowStore(database: database)
        activities = LiveActivityStore(database: database)
        self.matches = matches
        self.policy = policy
    }

    /// One follow of a batch: who follows which match.
    typealias FollowKey = FollowStore.FollowKey

    /// What a follow wrote.
    struct FollowOutcome: Sendable {
        var match: MatchStore.MatchInfo
        var expiresAt: Date
        /// Devices whose live_activities row (re)entered PENDING in this call: they get a start job.
        var starts: [PushJobFactory.Target]
        /// The text the start payload is built from (the display state's JSON, else the card's):
        /// equal texts give equal payloads, so it keys `StartPayloadCache`.
        var stateText: String
    }

    /// Upserts the follow; for a live match also a PENDING row per device of the user that has a
    /// push-to-start token. Returns nil when the match is unknown (rules: `FollowStore.follow`).
    func follow(userId: String, matchId: String, now: Date) async throws -> FollowOutcome? {
        try await follow([FollowKey(userId: userId, matchId: matchId)], now: now)[0]
    }

    /// Follows every key (which must be distinct) in one statement (`FollowStore.follow`): one round trip, all
    /// written or nothing. Returns one outcome per key, in order (nil: unknown match).
    func follow(_ keys: [FollowKey], now: Date) async throws -> [FollowOutcome?] {
        try await store.follow(keys, policy: policy, now: now).enumerated().map { index, followed in
            guard let followed else { return nil }
            let cached = displayStates.entry(followed.displayState)
            let match = MatchStore.MatchInfo(
                isLive: followed.isLive, startsAt: followed.startsAt, card: MatchStore.card(followed.card), displayState: cached?.state,
                seq: followed.seq, displayStateJSON: cached?.json)
            return FollowOutcome(
                match: match, expiresAt: followed.expiresAt,
                starts: followed.starts.map { start in
                    PushJobFactory.Target(
                        userId: keys[index].userId, deviceId: start.deviceId, token: start.pushToStartToken,
                        env: APNsEnvironment(rawValue: start.apnsEnvironment) ?? .production,
                        discriminator: String(start.startAttempts), channelId: start.channelId)
                },
                stateText: followed.displayState ?? followed.card ?? "")
        }
    }

    /// Makes the rows of failed start publishes eligible for an immediate resend on the next follow
    /// (one statement for all of them; best effort: a failure here only delays the resend).
    func markStartsUnsent(_ targets: [(matchId: String, target: PushJobFactory.Target)]) async {
        try? await activities.markStartsUnsent(targets.map { ($0.matchId, $0.target.userId, $0.target.deviceId) })
    }

    /// What an unfollow or dismiss ended.
    struct EndOutcome: Sendable {
        var endedDevices: [String]
        var jobs: [PushJob]
    }

    /// Ends every pending/active row of (user, match) with `reason`, deletes the follow, and — inside
    /// the same transaction, before it commits — hands the end jobs to `publish`: an end push for rows with an
    /// update token, and for channel activities (which the server cannot end by push) a background push to the
    /// device's own token naming the match, except to `actingDevice` (it ended its activity itself). A publish
    /// failure rolls everything back, so a retried request sends them again.
    func end(
        userId: String, matchId: String, reason: LiveActivityEndReason, now: Date, factory: PushJobFactory, actingDevice: String? = nil,
        publish: @Sendable ([PushJob]) async throws -> Void
    ) async throws -> EndOutcome {
        try await store.database.withTransaction { connection in
            // The follow row first, then the activity rows: the same lock order as the follow statement, so a
            // follow and an unfollow of the same (user, match) queue behind each other instead of deadlocking.
            try await FollowStore.unfollow(userId: userId, matchId: matchId, on: connection)
            let ended = try await LiveActivityStore.endForUser(on: connection, userId: userId, matchId: matchId,
                                                               reason: reason, now: now)
            var targets: [PushJobFactory.Target] = []
            var background: [PushJobFactory.Target] = []
            var devices: [String] = []
            for row in ended {
                devices.append(row.deviceId)
                if row.onChannel, row.deviceId != actingDevice, let token = row.devicePushToken {
                    background.append(.init(userId: userId, deviceId: row.deviceId, token: token,
                                            env: APNsEnvironment(rawValue: row.deviceEnvironment) ?? .production, discriminator: reason.rawValue))
                }
                guard let token = row.updateToken else { continue }
                targets.append(.init(
                    userId: userId, deviceId: row.deviceId, token: token,
                    env: APNsEnvironment(rawValue: row.apnsEnvironment) ?? .production, discriminator: reason.rawValue))
            }
            var jobs: [PushJob] = []
            if !targets.isEmpty {
                let current = try await matches.displayState(matchId: matchId, on: connection)
                let timestamp = Int64(now.timeIntervalSince1970)
                let state = FallbackDisplayState.resolve(state: current.state, card: current.card, matchId: matchId, updatedAt: timestamp)
                jobs = factory.endJobs(matchId: matchId, state: state, seq: current.seq, targets: targets, now: now)
            }
            jobs += factory.backgroundEndJobs(matchId: matchId, reason: reason.rawValue, targets: background, now: now)
            if !jobs.isEmpty { try await publish(jobs) }
            return EndOutcome(endedDevices: devices, jobs: jobs)
        }
    }

    /// The caller's follows, newest first.
    func follows(userId: String) async throws -> [FollowStore.Follow] {
        try await store.follows(userId: userId)
    }
}
