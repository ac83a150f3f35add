import Foundation
import Postgres

/// Every transition of a `live_activities` row, in one place (the table's state machine):
///
///     (none) ──follow / orchestrator──▶ PENDING ──update token──▶ ACTIVE
///     PENDING, ACTIVE ──match end / stumps / unfollow / dismiss / token invalid──▶ ENDED(reason)
///     ENDED(token_invalid, day_end) ──orchestrator──▶ PENDING;  ENDED(any) ──follow──▶ PENDING
///     ACTIVE ──rollover (8-hour limit)──▶ PENDING
///
/// The api, the poller's orchestrator and la-coordinator call these and hold no SQL that writes the table; the one
/// transition written elsewhere is a follow's (none, ENDED, stale PENDING → PENDING), which `FollowStore.follow` writes in
/// the same statement as the follow.
/// Methods that must join a caller's transaction (a transition committed only with the Kafka jobs it
/// causes) take its `PostgresConnection`; the others run on their own. Statuses and reasons are
/// `LiveActivityStatus` and `LiveActivityEndReason`.
public struct LiveActivityStore: Sendable {
    public let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    // MARK: - Ending (la-coordinator)

    /// The match's end: every row not ended, and every row waiting for the next day, → ENDED/match_end.
    /// - Returns: the rows changed (0 on a replay).
    public func endMatch(_ matchId: String) async throws -> Int {
        try await database.execute(
            """
            UPDATE live_activities SET status = \(Literal.ended), end_reason = \(Literal.matchEnd), updated_at = now()
            WHERE match_id = $1 AND (status <> \(Literal.ended) OR end_reason = \(Literal.dayEnd))
            """, [matchId])
    }

    /// A day's close of play: every row not ended, and every row ended token_invalid (the re-start budget is
    /// per day), → ENDED/day_end; rows the user ended keep their reason.
    /// - Returns: the rows changed (0 on a replay).
    public func endDay(_ matchId: String) async throws -> Int {
        try await database.execute(
            """
            UPDATE live_activities SET status = \(Literal.ended), end_reason = \(Literal.dayEnd), updated_at = now()
            WHERE match_id = $1 AND (status <> \(Literal.ended) OR end_reason = \(Literal.tokenInvalid))
            """, [matchId])
    }

    /// An update token APNs refused: the ACTIVE row(s) still holding it → ENDED/token_invalid (a rotated
    /// token survives a stale answer). `matchId` nil: every match of the device.
    public func endUpdateToken(_ token: String, userId: String, deviceId: String, matchId: String?) async throws -> Int {
        if let matchId {
            return try await database.execute(
                """
                UPDATE live_activities SET status = \(Literal.ended), end_reason = \(Literal.tokenInvalid), updated_at = now()
                WHERE match_id = $1 AND user_id = $2 AND device_id = $3 AND update_token = $4 AND status = \(Literal.active)
                """, [matchId, userId, deviceId, token])
        }
        return try await database.execute(
            """
            UPDATE live_activities SET status = \(Literal.ended), end_reason = \(Literal.tokenInvalid), updated_at = now()
            WHERE user_id = $1 AND device_id = $2 AND update_token = $3 AND status = \(Literal.active)
            """, [userId, deviceId, token])
    }

    /// A push-to-start token APNs refused, in one transaction: cleared on the device if it is still the
    /// device's, then the device's PENDING rows (of `matchId`, or all) → ENDED/token_invalid unless the device
    /// has a push-to-start token again.
    public func endPushToStartToken(_ token: String, userId: String, deviceId: String, matchId: String?) async throws
        -> (cleared: Int, ended: Int)
    {
        try await database.withTransaction { connection in
            let cleared = try await DeviceStore.clearPushToStartToken(token, userId: userId, deviceId: deviceId, on: connection)
            let ended = try await connection.query(
                """
                UPDATE live_activities SET status = \(Literal.ended), end_reason = \(Literal.tokenInvalid), updated_at = now()
                WHERE user_id = $1 AND device_id = $2 AND status = \(Literal.pending) AND ($3::text IS NULL OR match_id = $3)
                  AND NOT EXISTS (SELECT 1 FROM devices d WHERE d.user_id = $1 AND d.device_id = $2
                                  AND d.push_to_start_token IS NOT NULL)
                """, [userId, deviceId, matchId]).affectedRows
            return (cleared, ended)
        }
    }

    /// An activity the user ended (unfollow, dismiss), inside the caller's transaction.
    public struct UserEnded: Sendable, Equatable {
        public var deviceId: String
        /// The row's update token, when it had one (it gets an end push).
        public var updateToken: String?
        /// The device's APNs environment ("production" when the device is gone).
        public var apnsEnvironment: String
        /// A channel activity (no update token: the server cannot end it by push; the device's own token gets a
        /// background push naming the match instead).
        public var onChannel: Bool
        /// The device's own push token (`devices.push_token`), when it has one.
        public var devicePushToken: String?
        /// The device's APNs environment for that token.
        public var deviceEnvironment: String

        public init(deviceId: String, updateToken: String?, apnsEnvironment: String, onChannel: Bool = false,
                    devicePushToken: String? = nil, deviceEnvironment: String = "production") {
            self.deviceId = deviceId
            self.updateToken = updateToken
            self.apnsEnvironment = apnsEnvironment
            self.onChannel = onChannel
            self.devicePushToken = devicePushToken
            self.deviceEnvironment = deviceEnvironment
        }
    }

    /// Every PENDING/ACTIVE row of (user, match) → ENDED/`reason`, on `connection`.
    public static func endForUser(on connection: PostgresConnection, userId: String, matchId: String,
                                  reason: LiveActivityEndReason, now: Date) async throws -> [UserEnded] {
        let rows = try await connection.query(
            """
            WITH ended AS (
                UPDATE live_activities SET status = \(Literal.ended), end_reason = $3, updated_at = $4
                WHERE match_id = $2 AND user_id = $1 AND status IN (\(Literal.pending), \(Literal.active))
                RETURNING device_id, update_token, apns_env, delivery
            )
            SELECT ended.device_id, ended.update_token, ended.apns_env, ended.delivery = \(Literal.channelMode) AS on_channel, d.push_token,
                   coalesce(d.apns_env, 'production') AS device_env
            FROM ended LEFT JOIN devices d ON d.user_id = $1 AND d.device_id = ended.device_id
            ORDER BY ended.device_id
            """, [userId, matchId, reason.rawValue, now], prepared: true)
        return try rows.map {
            UserEnded(deviceId: try $0.decode("device_id"), updateToken: try $0.decode("update_token", as: String?.self),
                      apnsEnvironment: try $0.decode("apns_env"), onChannel: try $0.decode("on_channel"),
                      devicePushToken: try $0.decode("push_token", as: String?.self), deviceEnvironment: try $0.decode("device_env"))
        }
    }

    /// The activities on broadcast channel `channelId`, which APNs no longer knows, → ENDED/token_invalid (their
    /// channel is dead as a token would be): the orchestrator starts them again, on the match's new channel once the
    /// poller made one, else on tokens. Returns the rows changed (0 on a replay).
    @discardableResult
    public func endChannelActivities(channelId: String) async throws -> Int {
        try await database.execute(
            """
            UPDATE live_activities SET status = \(Literal.ended), end_reason = \(Literal.tokenInvalid), updated_at = now()
            WHERE channel_id = $1 AND status IN (\(Literal.pending), \(Literal.active))
            """, [channelId])
    }

    // MARK: - Update tokens (api)

    /// What registering an update token did.
    public enum TokenRegistration: Sendable, Equatable {
        /// The row is ACTIVE with the token; `rotated` when an ACTIVE row had another token.
        case active(rotated: Bool)
        /// No row can take the token: the user does not follow the match.
        case notFollowing
        /// The match is at close of play: the row is kept (or made) ENDED/day_end, so the orchestrator starts
        /// the next day's activity when play resumes; nothing is pushed overnight.
        case closeOfPlay
    }

    /// Registers `token` for (match, user, device):
    /// - a PENDING or ACTIVE row becomes ACTIVE with the token (rotation replaces it in place, keeping
    ///   `activated_at`, the activity's start for the 8-hour rollover);
    /// - an ENDED row, or no row at all, becomes ACTIVE only while the user follows the match (an activity
    ///   started locally or re-started after token_invalid); otherwise `.notFollowing`;
    /// - but while the match is at close of play, an ENDED or missing row of a follower becomes ENDED/day_end
    ///   instead (`.closeOfPlay`): a token that arrives after stumps must not make an activity ACTIVE
    ///   overnight, out of reach of the next day's start.
    /// The row takes the device's APNs environment with the token (the build that minted the token decides it).
    public func registerUpdateToken(_ token: String, userId: String, matchId: String, deviceId: String, now: Date)
        async throws -> TokenRegistration
    {
        try await registerActivity(.token(token), userId: userId, matchId: matchId, deviceId: deviceId, now: now)
    }

    /// How a running activity gets its updates.
    public enum ActivityDelivery: Sendable, Equatable {
        /// Per-token pushes to this update token.
        case token(String)
        /// The match's broadcasts on this channel (the activity has no update token).
        case channel(String)
    }

    /// Registers a running activity for (match, user, device) by its update token or its broadcast channel, with
    /// the same rules as `registerUpdateToken`; a channel row holds no update token (the fan-out never pushes to
    /// it per token), and a token registered for a channel row turns it back into a token row.
    public func registerActivity(_ delivery: ActivityDelivery, userId: String, matchId: String, deviceId: String, now: Date)
        async throws -> TokenRegistration
    {
        let (token, channelId, mode): (String?, String?, String) = switch delivery {
        case .token(let token): (token, nil, LiveActivityDeliveryMode.token.rawValue)
        case .channel(let channel): (nil, channel, LiveActivityDeliveryMode.channel.rawValue)
        }
        return try await database.withTransaction { connection in
            let existing = try await connection.query(
                "SELECT status, update_token FROM live_activities WHERE match_id = $1 AND user_id = $2 AND device_id = $3 FOR UPDATE",
                [matchId, userId, deviceId], prepared: true)
            let follow = try await connection.query(
                """
                SELECT f.expires_at, coalesce(m.is_live AND m.close_of_play, false) AS close_of_play
                FROM match_follows f LEFT JOIN matches m ON m.match_id = f.match_id
                WHERE f.user_id = $2 AND f.match_id = $1
                """, [matchId, userId], prepared: true)
            let status = try existing.first.map { LiveActivityStatus(rawValue: try $0.decode("status", as: String.self)) } ?? nil
            let oldToken = try existing.first?.decode("update_token", as: String?.self) ?? nil
            let following = !follow.isEmpty
            let followExpires = try follow.first?.decode("expires_at", as: Date?.self) ?? nil
            let live = status == .pending || status == .active
            guard live || following else { return .notFollowing }
            if !live, try follow.first?.decode("close_of_play", as: Bool.self) == true {
                try await connection.execute(
                    """
                    INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason, created_at, updated_at, expires_at)
                    VALUES ($1, $2, $3, \(Literal.ended), \(Literal.dayEnd), $4, $4, $5)
                    ON CONFLICT (match_id, user_id, device_id) DO UPDATE SET end_reason = \(Literal.dayEnd), updated_at = EXCLUDED.updated_at
                    """, [matchId, userId, deviceId, now, followExpires], prepared: true)
                return .closeOfPlay
            }
            try await connection.execute(
                """
                INSERT INTO live_activities (match_id, user_id, device_id, status, update_token, created_at, updated_at,
                                             expires_at, activated_at, apns_env, delivery, channel_id)
                VALUES ($1, $2, $3, \(Literal.active), $4, $5, $5, $6, $5,
                        coalesce((SELECT apns_env FROM devices WHERE user_id = $2 AND device_id = $3), 'production'), $7, $8)
                ON CONFLICT (match_id, user_id, device_id) DO UPDATE SET
                    status = \(Literal.active), end_reason = NULL, update_token = EXCLUDED.update_token, updated_at = EXCLUDED.updated_at,
                    apns_env = EXCLUDED.apns_env, delivery = EXCLUDED.delivery, channel_id = EXCLUDED.channel_id,
                    activated_at = CASE WHEN live_activities.status = \(Literal.active)
                                        THEN coalesce(live_activities.activated_at, live_activities.updated_at)
                                        ELSE EXCLUDED.activated_at END,
                    expires_at = COALESCE(EXCLUDED.expires_at, live_activities.expires_at)
                """, [matchId, userId, deviceId, token, now, followExpires, mode, channelId], prepared: true)
            return .active(rotated: token != nil && status == .active && oldToken != nil && oldToken != token)
        }
    }

    // MARK: - Starts (api's follow: the PENDING rows are written with the follow, `FollowStore.follow`)

    /// Makes the PENDING rows of start jobs that were not published eligible for an immediate resend on the next
    /// follow (last start at the epoch), in one statement.
    public func markStartsUnsent(_ rows: [(matchId: String, userId: String, deviceId: String)]) async throws {
        guard !rows.isEmpty else { return }
        try await database.execute(
            """
            UPDATE live_activities la SET updated_at = 'epoch'
            FROM unnest($1::text[], $2::text[], $3::text[]) AS u(match_id, user_id, device_id)
            WHERE la.match_id = u.match_id AND la.user_id = u.user_id AND la.device_id = u.device_id
              AND la.status = \(Literal.pending)
            """,
            [PostgresTextArray.literal(rows.lazy.map(\.matchId)), PostgresTextArray.literal(rows.lazy.map(\.userId)),
             PostgresTextArray.literal(rows.lazy.map(\.deviceId))],
            prepared: true)
    }

    // MARK: - Starts (poller's orchestrator)

    /// A first start: a PENDING row with `start_attempts` 1, unless the row exists. On `connection`.
    /// - Returns: true when the row was inserted.
    public static func insertPending(on connection: PostgresConnection, matchId: String, userId: String, deviceId: String,
                                     now: Date) async throws -> Bool {
        try await connection.query(
            """
            INSERT INTO live_activities (match_id, user_id, device_id, status, start_attempts, created_at, updated_at)
            VALUES ($1, $2, $3, \(Literal.pending), 1, $4, $4) ON CONFLICT DO NOTHING
            """, [matchId, userId, deviceId, now]).affectedRows == 1
    }

    /// A re-start of a row ENDED/`reason` with `attempts` starts so far → PENDING with one more (compare-and-set
    /// on reason and attempts). A day_end row's re-start is a fresh start (`day_start_attempt` = the new attempt).
    /// - Returns: true when the row changed.
    public static func restart(on connection: PostgresConnection, matchId: String, userId: String, deviceId: String,
                               endedAs reason: LiveActivityEndReason, attempts: Int, now: Date) async throws -> Bool {
        try await connection.query(
            """
            UPDATE live_activities SET status = \(Literal.pending), end_reason = NULL, update_token = NULL, activated_at = NULL,
                delivery = \(Literal.tokenMode), channel_id = NULL, start_attempts = start_attempts + 1, updated_at = $5,
                day_start_attempt = CASE WHEN $6 = \(Literal.dayEnd) THEN start_attempts + 1 ELSE day_start_attempt END
            WHERE match_id = $1 AND user_id = $2 AND device_id = $3 AND status = \(Literal.ended)
              AND end_reason = $6 AND start_attempts = $4
            """, [matchId, userId, deviceId, attempts, now, reason.rawValue]).affectedRows == 1
    }

    /// The rollover before iOS's 8-hour limit: an ACTIVE row with `attempts` starts still holding `updateToken`
    /// → PENDING as a fresh start (token and `activated_at` cleared). Compare-and-set on all three.
    /// - Returns: true when the row changed.
    public static func rollOver(on connection: PostgresConnection, matchId: String, userId: String, deviceId: String,
                                attempts: Int, updateToken: String?, now: Date) async throws -> Bool {
        try await connection.query(
            """
            UPDATE live_activities SET status = \(Literal.pending), update_token = NULL, activated_at = NULL,
                delivery = \(Literal.tokenMode), channel_id = NULL, start_attempts = start_attempts + 1, day_start_attempt = start_attempts + 1, updated_at = $5
            WHERE match_id = $1 AND user_id = $2 AND device_id = $3 AND status = \(Literal.active) AND start_attempts = $4
              AND update_token IS NOT DISTINCT FROM $6::text
            """, [matchId, userId, deviceId, attempts, now, updateToken]).affectedRows == 1
    }
}
