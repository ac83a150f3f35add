import LiveActivities
import Matches
import Postgres

/// Row counts of the pipeline's tables for the admin pipeline view, each from its table's store.
struct PipelineCounts: Sendable {
    let database: PostgresClient

    /// Row counts for the admin pipeline view.
    func read() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        counts["liveMatches"] = try await MatchStore(database: database).liveCount()
        counts["trackedMatches"] = try await ActiveMatchStore(database: database).trackedCount()
        counts["follows"] = try await FollowStore(database: database).count()
        counts["devices"] = try await DeviceStore(database: database).count()
        let activities = try await LiveActivityStore(database: database).countsByStatus()
        counts["activeActivities"] = activities[.active] ?? 0
        counts["pendingActivities"] = activities[.pending] ?? 0
        return counts
    }
}
