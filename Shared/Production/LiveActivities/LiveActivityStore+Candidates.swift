import Foundation
import Postgres
import Runtime

/// A follower's device of a match in play, as the orchestrator's start and rollover passes read it: who,
/// where to push (the push-to-start token and APNs environment as stored), and the match's card and
/// latest display state as stored JSON (decoded by the caller, which knows their shapes).
public struct FollowerDevice: Sendable {
    public var matchId: String
    public var userId: String
    public var deviceId: String
    public var pushToStartToken: String
    /// `devices.apns_env` ("production" or "sandbox").
    public var apnsEnvironment: String
    /// `matches.card`, nil when the column is NULL or not JSON.
    public var card: PostgresJSON?
    /// `active_matches.display_state`, nil before the first snapshot.
    public var displayState: PostgresJSON?
    /// `active_matches.seq` of that state (0 without one).
    public var stateSeq: Int64
    /// The match's ACTIVE broadcast channel in the device's environment when the device is channel-capable
    /// (`devices.channel_capable`): its start carries `input-push-channel`. nil: a token start.
    public var channelId: String?

    init(_ row: PostgresRow) throws {
        matchId = try row.decode("match_id")
        userId = try row.decode("user_id")
        deviceId = try row.decode("device_id")
        pushToStartToken = try row.decode("push_to_start_token")
        apnsEnvironment = try row.decode("apns_env")
        card = try? row.decode("card", as: PostgresJSON?.self)
        displayState = try? row.decode("display_state", as: PostgresJSON?.self)
        stateSeq = try row.decode("state_seq")
        channelId = try row.decode("start_channel_id", as: String?.self)
    }
}

/// A device that needs a push-to-start: no `live_activities` row yet, or an ended row the orchestrator
/// may re-start (ended token_invalid or day_end).
public struct ActivityStartCandidate: Sendable {
    /// The ended row a re-start replaces.
    public struct EndedRow: Sendable {
        public var reason: LiveActivityEndReason
        /// `start_attempts` so far.
        public var attempts: Int
        /// `day_start_attempt`: the attempt of the row's latest fresh start.
        public var dayStartAttempt: Int
        public var updatedAt: Date
    }

    public var device: FollowerDevice
    /// nil: the device has no row for the match yet.
    public var ended: EndedRow?
}

/// An ACTIVE activity old enough to be rolled over before iOS's 8-hour limit.
public struct ActivityRolloverCandidate: Sendable {
    public var device: FollowerDevice
    /// The activity's current update token (the end push goes there); nil for a channel activity, which the
    /// server cannot end by push (the app ends the older activity of a match when the new one starts).
    public var updateToken: String?
    /// `start_attempts` so far.
    public var attempts: Int
}

extension LiveActivityStore {
    // MARK: - Reads of the orchestrator

    /// Streams, ordered by match, user and device, the follower devices of live matches (not at close
    /// of play) with a push-to-start token and either no row or a re-startable ended row, to `body`
    /// (a cursor fetching `batchSize` rows at a time, so memory stays flat for any audience).
    ///
    /// A channel-capable device whose match's channel in its environment is being made (`creating`, or `invalid`:
    /// lost, the manager makes it again next) waits for it, for at most `channelWait` after that channel row last
    /// changed: started now it would go to tokens for the rest of the match. After that wait it starts on tokens, and
    /// at once after a create APNs left unanswered (`invalid` with "create unanswered": the row cycles while APNs is
    /// silent, and each turn would restart the wait).
    public func forEachStartCandidate(now: Date, channelWait: Duration = .seconds(120), batchSize: Int,
                                      _ body: (ActivityStartCandidate) async throws -> Void) async throws
    {
        let waitSince = now.addingTimeInterval(-channelWait.seconds)
        _ = try await database.stream(
            """
            SELECT m.match_id, m.card, am.display_state, coalesce(am.seq, 0) AS state_seq, d.user_id, d.device_id,
                   d.push_to_start_token, d.apns_env, la.start_attempts, la.day_start_attempt, la.end_reason, la.updated_at,
                   CASE WHEN d.channel_capable THEN bc.channel_id END AS start_channel_id
            FROM matches m
            JOIN match_follows f ON f.match_id = m.match_id AND (f.expires_at IS NULL OR f.expires_at > $1)
            JOIN devices d ON d.user_id = f.user_id AND coalesce(d.push_to_start_token, '') <> ''
            LEFT JOIN live_activities la ON la.match_id = m.match_id AND la.user_id = d.user_id AND la.device_id = d.device_id
            LEFT JOIN active_matches am ON am.match_id = m.match_id
            LEFT JOIN broadcast_channels bc ON bc.match_id = m.match_id AND bc.apns_env = d.apns_env AND bc.state = \(Literal.channelActive)
            WHERE m.is_live AND NOT m.close_of_play
              AND (la.match_id IS NULL OR (la.status = \(Literal.ended) AND la.end_reason IN (\(Literal.tokenInvalid), \(Literal.dayEnd))))
              AND NOT (d.channel_capable AND EXISTS (
                  SELECT 1 FROM broadcast_channels pending
                  WHERE pending.match_id = m.match_id AND pending.apns_env = d.apns_env
                    AND pending.updated_at > $2
                    AND (pending.state = \(Literal.channelCreating)
                         OR (pending.state = \(Literal.channelInvalid) AND pending.failure_reason IS DISTINCT FROM \(Literal.createUnanswered)))))
            ORDER BY m.match_id, d.user_id, d.device_id
            """, [now, waitSince], batchSize: batchSize
        ) { row in
            let device = try FollowerDevice(row)
            var ended: ActivityStartCandidate.EndedRow?
            if let attempts = try row.decode("start_attempts", as: Int?.self) {
                ended = .init(
                    reason: try row.decode("end_reason", as: String?.self).flatMap(LiveActivityEndReason.init(rawValue:)) ?? .tokenInvalid,
                    attempts: attempts, dayStartAttempt: try row.decode("day_start_attempt", as: Int?.self) ?? 1,
                    updatedAt: try row.decode("updated_at", as: Date?.self) ?? .distantPast)
            }
            try await body(ActivityStartCandidate(device: device, ended: ended))
        }
    }

    /// Up to `limit` ACTIVE activities of matches in play activated at or before `cutoff`, holding an update
    /// token or on a broadcast channel, whose device has a push-to-start token (ordered by match, user, device).
    public func rolloverCandidates(activatedBefore cutoff: Date, limit: Int) async throws -> [ActivityRolloverCandidate] {
        // Bounded by LIMIT: one query, no cursor (the pass runs every 30 s and usually finds nothing).
        try await database.query(
            """
            SELECT la.match_id, la.user_id, la.device_id, la.update_token, la.start_attempts, d.push_to_start_token,
                   d.apns_env, m.card, am.display_state, coalesce(am.seq, 0) AS state_seq,
                   CASE WHEN d.channel_capable THEN bc.channel_id END AS start_channel_id
            FROM live_activities la
            JOIN matches m ON m.match_id = la.match_id AND m.is_live AND NOT m.close_of_play
            JOIN devices d ON d.user_id = la.user_id AND d.device_id = la.device_id AND coalesce(d.push_to_start_token, '') <> ''
            LEFT JOIN active_matches am ON am.match_id = la.match_id
            LEFT JOIN broadcast_channels bc ON bc.match_id = la.match_id AND bc.apns_env = d.apns_env AND bc.state = \(Literal.channelActive)
            WHERE la.status = \(Literal.active) AND la.activated_at <= $1
              AND (coalesce(la.update_token, '') <> '' OR la.delivery = \(Literal.channelMode))
            ORDER BY la.match_id, la.user_id, la.device_id
            LIMIT $2
            """, [cutoff, limit]
        ).map { row in
            ActivityRolloverCandidate(
                device: try FollowerDevice(row), updateToken: try row.decode("update_token", as: String?.self),
                attempts: try row.decode("start_attempts"))
        }
    }

    // MARK: - Expiry (poller's TTL sweep)

    /// Deletes rows past `expires_at` in batches of `batchSize` (at most `maxBatches` statements).
    /// - Returns: the rows deleted.
    public func deleteExpired(before now: Date, batchSize: Int, maxBatches: Int) async throws -> Int {
        try await database.executeInBatches(
            """
            DELETE FROM live_activities WHERE ctid IN (
                SELECT ctid FROM live_activities WHERE expires_at IS NOT NULL AND expires_at < $1 LIMIT $2)
            """, [now], batchSize: batchSize, maxBatches: maxBatches)
    }
}
