import LiveActivities
import Postgres

/// Ends a match's Live Activities once its end pushes are acknowledged (`LiveActivityStore`: match_end for good,
/// day_end at a day's close of play, the orchestrator starting the next day's), and tells whether a day's end
/// still applies.
struct MatchEndWriter: Sendable {
    let database: PostgresClient

    var activities: LiveActivityStore { LiveActivityStore(database: database) }

    /// `LiveActivityStore.endMatch`: the rows changed (0 on a replay).
    func endMatch(_ matchId: String) async throws -> Int {
        try await activities.endMatch(matchId)
    }

    /// `LiveActivityStore.endDay`: the rows changed (0 on a replay).
    func endDay(_ matchId: String) async throws -> Int {
        try await activities.endDay(matchId)
    }

    /// True while the match is at close of play (`matches.close_of_play`, written by the poller before it
    /// publishes the stumps snapshot). A day's end handled after play resumed (a lagging or redelivered
    /// event) is skipped: it would end the new day's activities.
    func isAtCloseOfPlay(_ matchId: String) async throws -> Bool {
        try await database.query("SELECT close_of_play FROM matches WHERE match_id = $1", [matchId])
            .first?.decode("close_of_play", as: Bool.self) ?? false
    }
}
