import Postgres

/// Marks a match's Live Activities ended/match_end once its end pushes are acknowledged.
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
}
