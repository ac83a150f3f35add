import Postgres

/// Marks a match's Live Activities ended once its end pushes are acknowledged: match_end for good,
/// day_end at a day's close of play (the orchestrator starts the next day's activities).
struct MatchEndWriter: Sendable {
    let database: PostgresClient

    /// Every row of the match that is not already ended (active and pending) → ended/match_end.
    /// - Returns: the number of rows changed (0 on a replay).
    func endMatch(_ matchId: String) async throws -> Int {
        try await database.execute(
            """
            UPDATE live_activities SET status = 'ended', end_reason = 'match_end', updated_at = now()
            WHERE match_id = $1 AND status <> 'ended'
            """, [matchId])
    }

    /// Every row of the match that is not ended → ended/day_end; rows already ended (unfollowed,
    /// dismissed, token_invalid) keep their reason.
    /// - Returns: the number of rows changed (0 on a replay).
    func endDay(_ matchId: String) async throws -> Int {
        try await database.execute(
            """
            UPDATE live_activities SET status = 'ended', end_reason = 'day_end', updated_at = now()
            WHERE match_id = $1 AND status <> 'ended'
            """, [matchId])
    }
}
