import Contracts
import PushComposition
import Foundation
import LiveActivities
import Postgres
import Matches

/// Follows and the Live Activity rows they create or end. Every statement is filtered by the
/// caller's user id, so one user can never see or change another's rows.
struct FollowStore: Sendable {
    let database: PostgresClient
    let matches: MatchStore
    let policy: FollowPolicy
    /// Decoded display states of the follow answers and start payloads.
    let displayStates = DisplayStateCache()

    /// One follow of a batch: who follows which match.
    struct FollowKey: Sendable, Hashable {
        var userId: String
        var matchId: String
    }

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
    /// push-to-start token. Returns nil when the match is unknown.
    ///
    /// A row enters (or re-enters) PENDING, and so gets a start job, when it is new, when it had ended,
    /// or when it is still PENDING but its last start is older than `policy.startResendAfter` and
    /// fewer than `policy.maximumStartAttempts` were made. ACTIVE rows are never touched.
    func follow(userId: String, matchId: String, now: Date) async throws -> FollowOutcome? {
        try await follow([FollowKey(userId: userId, matchId: matchId)], now: now)[0]
    }

    /// Follows every key (which must be distinct) by the rules of `follow(userId:matchId:now:)`, in
    /// one statement (`FollowBatchStatement`): one round trip, all written or nothing. Returns one
    /// outcome per key, in order (nil: unknown match).
    ///
    /// A deadlock or serialization failure aborts the statement without writing anything; it is
    /// run once more before the error is thrown.
    func follow(_ keys: [FollowKey], now: Date) async throws -> [FollowOutcome?] {
        guard !keys.isEmpty else { return [] }
        let parameters: [PostgresValue?] = [
            PostgresTextArray.literal(keys.lazy.map(\.userId)), PostgresTextArray.literal(keys.lazy.map(\.matchId)), now,
            policy.maximumMatchDuration, policy.retentionAfterEnd, now.addingTimeInterval(-policy.startResendAfter),
            policy.maximumStartAttempts,
        ]
        let rows: PostgresRows
        do {
            rows = try await database.query(FollowBatchStatement.sql, parameters, prepared: true)
        } catch let error as PostgresError where error.sqlState == "40P01" || error.sqlState == "40001" {
            rows = try await database.query(FollowBatchStatement.sql, parameters, prepared: true)
        }
        var outcomes = [FollowOutcome?](repeating: nil, count: keys.count)
        for row in rows {
            let index = try row.decode("i", as: Int.self) - 1
            guard keys.indices.contains(index) else { throw FollowBatchRowError.unexpectedIndex(index + 1, batchSize: keys.count) }
            if outcomes[index] == nil {
                let card: String? = try row.decode("card", as: String?.self)
                let state: String? = try row.decode("display_state", as: String?.self)
                let cached = displayStates.entry(state)
                let match = MatchStore.MatchInfo(
                    isLive: try row.decode("is_live"), startsAt: try row.decode("starts_at", as: Date?.self),
                    card: MatchStore.card(card), displayState: cached?.state, seq: try row.decode("seq"),
                    displayStateJSON: cached?.json)
                outcomes[index] = FollowOutcome(
                    match: match, expiresAt: try row.decode("expires_at"), starts: [], stateText: state ?? card ?? "")
            }
            guard let deviceId = try row.decode("device_id", as: String?.self) else { continue }
            outcomes[index]?.starts.append(PushJobFactory.Target(
                userId: keys[index].userId, deviceId: deviceId, token: try row.decode("push_to_start_token"),
                env: APNsEnvironment(rawValue: try row.decode("apns_env")) ?? .production,
                discriminator: String(try row.decode("start_attempts", as: Int.self)),
                channelId: try row.decode("start_channel_id", as: String?.self)))
        }
        return outcomes
    }

    /// Makes the rows of failed start publishes eligible for an immediate resend on the next follow
    /// (one statement for all of them; best effort: a failure here only delays the resend).
    func markStartsUnsent(_ targets: [(matchId: String, target: PushJobFactory.Target)]) async {
        guard !targets.isEmpty else { return }
        _ = try? await database.execute(
            FollowBatchStatement.markUnsentSQL,
            [PostgresTextArray.literal(targets.lazy.map(\.matchId)), PostgresTextArray.literal(targets.lazy.map(\.target.userId)),
             PostgresTextArray.literal(targets.lazy.map(\.target.deviceId))],
            prepared: true)
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
        try await database.withTransaction { connection in
            // The follow row first, then the activity rows: the same lock order as the follow statement, so a
            // follow and an unfollow of the same (user, match) queue behind each other instead of deadlocking.
            try await connection.execute(
                "DELETE FROM match_follows WHERE user_id = $1 AND match_id = $2", [userId, matchId], prepared: true)
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
    func follows(userId: String) async throws -> [(matchId: String, createdAt: Date, expiresAt: Date?)] {
        let rows = try await database.query(
            "SELECT match_id, created_at, expires_at FROM match_follows WHERE user_id = $1 ORDER BY created_at DESC, match_id LIMIT 1000",
            [userId], prepared: true)
        return try rows.map { (try $0.decode("match_id"), try $0.decode("created_at"), try $0.decode("expires_at", as: Date?.self)) }
    }
}

/// Time rules of follows and starts.
struct FollowPolicy: Sendable {
    /// Follows live on this long after the match ends (seeds: 48 h).
    var retentionAfterEnd: TimeInterval = 48 * 3600
    /// The end of a match is not known when it is followed: assume it ends at most this long after
    /// its start (5 days covers a Test match). The poller may shorten expires_at once the match ends.
    var maximumMatchDuration: TimeInterval = 5 * 86_400
    /// A PENDING row whose last start is older than this gets a new start on a repeated follow.
    var startResendAfter: TimeInterval = 60
    /// At most this many starts per (match, user, device) through repeated follows of a PENDING row.
    var maximumStartAttempts: Int = 5

    /// expires_at = max(startsAt (or now) + maximum duration, now) + retention.
    func followExpiry(startsAt: Date?, now: Date) -> Date {
        max((startsAt ?? now).addingTimeInterval(maximumMatchDuration), now).addingTimeInterval(retentionAfterEnd)
    }
}
