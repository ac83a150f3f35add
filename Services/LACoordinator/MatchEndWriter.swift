import Postgres

/// Marks a match's Live Activities ended once its end pushes are acknowledged: match_end for good,
/// day_end at a day's close of play (the orchestrator starts the next day's activities).
struct MatchEndWriter: Sendable {
    let database: PostgresClient

    /// Every row of the match that is not already ended (active and pending), and every row waiting for
    /// the next day (day_end), → ended/match_end.
    /// - Returns: the number of rows changed (0 on a replay).
    func endMatch(_ matchId: String) async throws -> Int {
        try await database.execute(
            """
            UPDATE live_activities SET status = 'ended', end_reason = 'match_end', updated_at = now()
            WHERE match_id = $1 AND (status <> 'ended' OR end_reason = 'day_end')
            """, [matchId])
    }

    /// Every row of the match that is not ended, and every row ended token_invalid (its re-start budget
    /// is per day), → ended/day_end; rows the user ended (unfollowed, dismissed) keep their reason.
    /// - Returns: the number of rows changed (0 on a replay).
    func endDay(_ matchId: String) async throws -> Int {
        try await database.execute(
            """
            UPDATE live_activities SET status = 'ended', end_reason = 'day_end', updated_at = now()
            WHERE match_id = $1 AND (status <> 'ended' OR end_reason = 'token_invalid')
            """, [matchId])
    }

    /// True while the match is at close of play (`matches.close_of_play`, written by the poller before it
    /// publishes the stumps snapshot). A day's end handled after play resumed (a lagging or redelivered
    /// event) is skipped: it would end the new day's activities.
    func isAtCloseOfPlay(_ matchId: String) async throws -> Bool {
        try await database.query("SELECT close_of_play FROM matches WHERE match_id = $1", [matchId])
            .first?.decode("close_of_play", as: Bool.self) ?? false
    }
}
