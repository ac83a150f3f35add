import LiveActivities
import Postgres

/// Row counts of the pipeline's tables for the admin pipeline view (a read across tables; live_activities through its store).
struct PipelineCounts: Sendable {
    let database: PostgresClient

    /// Row counts for the admin pipeline view.
    func read() async throws -> [String: Int] {
        let rows = try await database.query(
            """
            SELECT (SELECT count(*) FROM matches WHERE is_live) AS live_matches,
                   (SELECT count(*) FROM active_matches WHERE poller_state <> 'ended') AS tracked_matches,
                   (SELECT count(*) FROM match_follows) AS follows,
                   (SELECT count(*) FROM devices) AS devices
            """)
        guard let row = rows.first else { return [:] }
        var counts: [String: Int] = [:]
        for (key, column) in [("liveMatches", "live_matches"), ("trackedMatches", "tracked_matches"), ("follows", "follows"),
                              ("devices", "devices")] {
            counts[key] = try row.decode(column, as: Int.self)
        }
        let activities = try await LiveActivityStore(database: database).countsByStatus()
        counts["activeActivities"] = activities[.active] ?? 0
        counts["pendingActivities"] = activities[.pending] ?? 0
        return counts
    }
}
