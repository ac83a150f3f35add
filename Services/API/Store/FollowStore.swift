import Contracts
import Foundation
import Postgres

/// Follows and the Live Activity rows they create or end. Every statement is filtered by the
/// caller's user id, so one user can never see or change another's rows.
struct FollowStore: Sendable {
    let database: PostgresClient
    let matches: MatchStore
    let policy: FollowPolicy
    /// Decoded display states of the follow answers and start payloads.
    let displayStates = DisplayStateCache()

    /// What a follow wrote.
    struct FollowOutcome: Sendable {
        var match: MatchStore.MatchInfo
        var expiresAt: Date
        /// Devices whose live_activities row (re)entered PENDING in this call: they get a start job.
        var starts: [PushJobFactory.Target]
    }

    /// Upserts the follow; for a live match also a PENDING row per device of the user that has a
    /// push-to-start token. Returns nil when the match is unknown.
    ///
    /// A row enters (or re-enters) PENDING, and so gets a start job, when it is new, when it had ended,
    /// or when it is still PENDING but its last start is older than `policy.startResendAfter` and
    /// fewer than `policy.maximumStartAttempts` were made. ACTIVE rows are never touched.
    ///
    /// One statement, one round trip (`FollowStatement`): it reads the match, upserts the follow and,
    /// for a live match, the PENDING rows; as a single statement it is its own transaction.
    func follow(userId: String, matchId: String, now: Date) async throws -> FollowOutcome? {
        let rows = try await database.query(
            FollowStatement.sql,
            [userId, matchId, now, policy.maximumMatchDuration, policy.retentionAfterEnd,
             now.addingTimeInterval(-policy.startResendAfter), policy.maximumStartAttempts],
            prepared: true)
        guard let first = rows.first else { return nil }
        let match = MatchStore.MatchInfo(
            isLive: try first.decode("is_live"), startsAt: try first.decode("starts_at", as: Date?.self),
            card: MatchStore.card(try first.decode("card", as: String?.self)),
            displayState: displayStates.state(try first.decode("display_state", as: String?.self)),
            seq: try first.decode("seq"))
        var starts: [PushJobFactory.Target] = []
        for row in rows {
            guard let deviceId = try row.decode("device_id", as: String?.self) else { continue }
            starts.append(PushJobFactory.Target(
                userId: userId, deviceId: deviceId, token: try row.decode("push_to_start_token"),
                env: APNsEnvironment(rawValue: try row.decode("apns_env")) ?? .production,
                discriminator: String(try row.decode("start_attempts", as: Int.self))))
        }
        return FollowOutcome(match: match, expiresAt: try first.decode("expires_at"), starts: starts)
    }

    /// Makes the rows of a failed start publish eligible for an immediate resend on the next follow.
    func markStartsUnsent(userId: String, matchId: String, deviceIds: [String]) async {
        for deviceId in deviceIds {
            _ = try? await database.execute(
                "UPDATE live_activities SET updated_at = 'epoch' WHERE match_id = $1 AND user_id = $2 AND device_id = $3 AND status = 'pending'",
                [matchId, userId, deviceId])
        }
    }

    /// What an unfollow or dismiss ended.
    struct EndOutcome: Sendable {
        var endedDevices: [String]
        var jobs: [PushJob]
    }

    /// Ends every pending/active row of (user, match) with `reason`, deletes the follow, and — inside
    /// the same transaction, before it commits — hands the end jobs (for rows with an update token)
    /// to `publish`. A publish failure rolls everything back, so a retried request sends them again.
    func end(
        userId: String, matchId: String, reason: String, now: Date, factory: PushJobFactory,
        publish: @Sendable ([PushJob]) async throws -> Void
    ) async throws -> EndOutcome {
        try await database.withTransaction { connection in
            let ended = try await connection.query(
                """
                WITH ended AS (
                    UPDATE live_activities SET status = 'ended', end_reason = $3, updated_at = $4
                    WHERE match_id = $2 AND user_id = $1 AND status IN ('pending', 'active')
                    RETURNING device_id, update_token
                )
                SELECT ended.device_id, ended.update_token, COALESCE(d.apns_env, 'production') AS apns_env
                FROM ended LEFT JOIN devices d ON d.user_id = $1 AND d.device_id = ended.device_id ORDER BY ended.device_id
                """, [userId, matchId, reason, now], prepared: true)
            try await connection.execute(
                "DELETE FROM match_follows WHERE user_id = $1 AND match_id = $2", [userId, matchId], prepared: true)
            var targets: [PushJobFactory.Target] = []
            var devices: [String] = []
            for row in ended {
                let deviceId: String = try row.decode("device_id")
                devices.append(deviceId)
                guard let token = try row.decode("update_token", as: String?.self) else { continue }
                targets.append(.init(
                    userId: userId, deviceId: deviceId, token: token,
                    env: APNsEnvironment(rawValue: try row.decode("apns_env")) ?? .production, discriminator: reason))
            }
            var jobs: [PushJob] = []
            if !targets.isEmpty {
                let current = try await matches.displayState(matchId: matchId, on: connection)
                let timestamp = Int64(now.timeIntervalSince1970)
                let state = current.state ?? current.card.map { DisplayStateFallback.from(card: $0, now: timestamp) }
                    ?? DisplayStateFallback.bare(matchId: matchId, now: timestamp)
                jobs = factory.endJobs(matchId: matchId, state: state, seq: current.seq, targets: targets, now: now)
                try await publish(jobs)
            }
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
