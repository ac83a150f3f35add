import Foundation
import Postgres

/// The one store of the `match_follows` table: the api's follow (one statement that also writes the follow's PENDING
/// `live_activities` rows, `FollowBatchStatement`), unfollow and list, the poller's TTL sweep, and the counts of the
/// admin views and the match report. Every statement of a user's follows is filtered by that user's id.
public struct FollowStore: Sendable {
    public let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// One follow of a batch: who follows which match.
    public struct FollowKey: Sendable, Hashable {
        public var userId: String
        public var matchId: String

        public init(userId: String, matchId: String) {
            self.userId = userId
            self.matchId = matchId
        }
    }

    /// A device whose `live_activities` row (re)entered PENDING in a follow: it gets a start job.
    public struct Start: Sendable, Equatable {
        public var deviceId: String
        public var pushToStartToken: String
        /// `devices.apns_env`.
        public var apnsEnvironment: String
        /// The row's `start_attempts` after this start.
        public var startAttempts: Int
        /// The match's ACTIVE broadcast channel in the device's environment when the device is channel-capable.
        public var channelId: String?

        public init(deviceId: String, pushToStartToken: String, apnsEnvironment: String, startAttempts: Int, channelId: String?) {
            self.deviceId = deviceId
            self.pushToStartToken = pushToStartToken
            self.apnsEnvironment = apnsEnvironment
            self.startAttempts = startAttempts
            self.channelId = channelId
        }
    }

    /// What a follow wrote and read for one key.
    public struct Followed: Sendable {
        /// In play: live and not at close of play.
        public var isLive: Bool
        public var startsAt: Date?
        /// `matches.card` as stored, read only when the match has no display state.
        public var card: String?
        /// `active_matches.display_state` as stored.
        public var displayState: String?
        public var seq: Int64
        public var expiresAt: Date
        /// Ordered by device id.
        public var starts: [Start]
    }

    /// Follows every key (which must be distinct) in one statement (`FollowBatchStatement`): one round trip, all
    /// written or nothing. Returns one outcome per key, in order (nil: unknown match).
    ///
    /// A row enters (or re-enters) PENDING, and so gets a start, when it is new, when it had ended, or when it is still
    /// PENDING but its last start is older than `policy.startResendAfter` and fewer than `policy.maximumStartAttempts`
    /// were made. ACTIVE rows are never touched. A deadlock or serialization failure aborts the statement without
    /// writing anything; it is run once more before the error is thrown.
    public func follow(_ keys: [FollowKey], policy: FollowPolicy, now: Date) async throws -> [Followed?] {
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
        var outcomes = [Followed?](repeating: nil, count: keys.count)
        for row in rows {
            let index = try row.decode("i", as: Int.self) - 1
            guard keys.indices.contains(index) else { throw FollowBatchRowError.unexpectedIndex(index + 1, batchSize: keys.count) }
            if outcomes[index] == nil {
                outcomes[index] = Followed(
                    isLive: try row.decode("is_live"), startsAt: try row.decode("starts_at", as: Date?.self),
                    card: try row.decode("card", as: String?.self), displayState: try row.decode("display_state", as: String?.self),
                    seq: try row.decode("seq"), expiresAt: try row.decode("expires_at"), starts: [])
            }
            guard let deviceId = try row.decode("device_id", as: String?.self) else { continue }
            outcomes[index]?.starts.append(Start(
                deviceId: deviceId, pushToStartToken: try row.decode("push_to_start_token"), apnsEnvironment: try row.decode("apns_env"),
                startAttempts: try row.decode("start_attempts"), channelId: try row.decode("start_channel_id", as: String?.self)))
        }
        return outcomes
    }

    /// Deletes the follow of (user, match) on `connection`, inside the caller's transaction (an unfollow ends the
    /// activities in the same one: the follow row first, the same lock order as the follow statement).
    /// - Returns: true when there was a follow.
    @discardableResult
    public static func unfollow(userId: String, matchId: String, on connection: PostgresConnection) async throws -> Bool {
        try await connection.execute(
            "DELETE FROM match_follows WHERE user_id = $1 AND match_id = $2", [userId, matchId], prepared: true) > 0
    }

    /// One follow of a user.
    public struct Follow: Sendable, Equatable {
        public var matchId: String
        public var createdAt: Date
        public var expiresAt: Date?
    }

    /// The user's follows, newest first (at most 1,000).
    public func follows(userId: String) async throws -> [Follow] {
        let rows = try await database.query(
            "SELECT match_id, created_at, expires_at FROM match_follows WHERE user_id = $1 ORDER BY created_at DESC, match_id LIMIT 1000",
            [userId], prepared: true)
        return try rows.map {
            Follow(matchId: try $0.decode("match_id"), createdAt: try $0.decode("created_at"), expiresAt: try $0.decode("expires_at", as: Date?.self))
        }
    }

    /// The match's followers whose follow has not expired at `now`.
    public func followerCount(matchId: String, now: Date) async throws -> Int {
        try await database.query(
            "SELECT count(*) AS n FROM match_follows WHERE match_id = $1 AND (expires_at IS NULL OR expires_at > $2)", [matchId, now]
        ).first?.decode("n", as: Int.self) ?? 0
    }

    /// How many follows are stored (the admin pipeline view).
    public func count() async throws -> Int {
        try await database.query("SELECT count(*) AS n FROM match_follows").first?.decode("n", as: Int.self) ?? 0
    }

    /// Deletes follows past `expires_at` in batches of `batchSize` (at most `maxBatches` statements; the poller's TTL sweep).
    /// - Returns: the rows deleted.
    public func deleteExpired(before now: Date, batchSize: Int, maxBatches: Int) async throws -> Int {
        try await database.executeInBatches(
            """
            DELETE FROM match_follows WHERE ctid IN (
                SELECT ctid FROM match_follows WHERE expires_at IS NOT NULL AND expires_at < $1 LIMIT $2)
            """, [now], batchSize: batchSize, maxBatches: maxBatches)
    }
}
