import Foundation
import Postgres

/// Live Activity update tokens posted by the app.
struct ActivityStore: Sendable {
    let database: PostgresClient

    enum TokenOutcome: Sendable, Equatable {
        /// The row is ACTIVE with the token; `rotated` when an ACTIVE row had another token.
        case active(rotated: Bool)
        /// No row can take the token: the user does not follow the match.
        case notFollowing
        /// The match is at close of play (stumps): the row is kept (or made) ended/day_end, so the
        /// orchestrator starts the next day's activity when play resumes; nothing is pushed overnight.
        case closeOfPlay
    }

    /// Registers `token` for (match, user, device):
    /// - a PENDING or ACTIVE row becomes ACTIVE with the token (rotation replaces it in place, keeping
    ///   `activated_at`, the activity's start for the 8-hour rollover);
    /// - an ENDED row, or no row at all, becomes ACTIVE only while the user follows the match
    ///   (an activity started locally or re-started after token_invalid); otherwise `.notFollowing`;
    /// - but while the match is at close of play, an ENDED or missing row of a follower becomes
    ///   ended/day_end instead (`.closeOfPlay`): a token that arrives after stumps must not make an
    ///   activity ACTIVE overnight, out of reach of the next day's start.
    func register(userId: String, matchId: String, deviceId: String, token: String, now: Date) async throws -> TokenOutcome {
        try await database.withTransaction { connection in
            let existing = try await connection.query(
                "SELECT status, update_token FROM live_activities WHERE match_id = $1 AND user_id = $2 AND device_id = $3 FOR UPDATE",
                [matchId, userId, deviceId], prepared: true)
            let follow = try await connection.query(
                """
                SELECT f.expires_at, coalesce(m.is_live AND m.close_of_play, false) AS close_of_play
                FROM match_follows f LEFT JOIN matches m ON m.match_id = f.match_id
                WHERE f.user_id = $2 AND f.match_id = $1
                """, [matchId, userId], prepared: true)
            let status = try existing.first?.decode("status", as: String.self)
            let oldToken = try existing.first?.decode("update_token", as: String?.self) ?? nil
            let following = !follow.isEmpty
            let followExpires = try follow.first?.decode("expires_at", as: Date?.self) ?? nil
            let live = status == "pending" || status == "active"
            guard live || following else { return .notFollowing }
            if !live, try follow.first?.decode("close_of_play", as: Bool.self) == true {
                try await connection.execute(
                    """
                    INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason, created_at, updated_at, expires_at)
                    VALUES ($1, $2, $3, 'ended', 'day_end', $4, $4, $5)
                    ON CONFLICT (match_id, user_id, device_id) DO UPDATE SET end_reason = 'day_end', updated_at = EXCLUDED.updated_at
                    """, [matchId, userId, deviceId, now, followExpires], prepared: true)
                return .closeOfPlay
            }
            try await connection.execute(
                """
                INSERT INTO live_activities (match_id, user_id, device_id, status, update_token, created_at, updated_at,
                                             expires_at, activated_at)
                VALUES ($1, $2, $3, 'active', $4, $5, $5, $6, $5)
                ON CONFLICT (match_id, user_id, device_id) DO UPDATE SET
                    status = 'active', end_reason = NULL, update_token = EXCLUDED.update_token, updated_at = EXCLUDED.updated_at,
                    activated_at = CASE WHEN live_activities.status = 'active'
                                        THEN coalesce(live_activities.activated_at, live_activities.updated_at)
                                        ELSE EXCLUDED.activated_at END,
                    expires_at = COALESCE(EXCLUDED.expires_at, live_activities.expires_at)
                """, [matchId, userId, deviceId, token, now, followExpires], prepared: true)
            return .active(rotated: status == "active" && oldToken != nil && oldToken != token)
        }
    }
}
