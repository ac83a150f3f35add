import DeliveryRecord
import FeedHistory
import Foundation
import LiveActivities
import Postgres
import Runtime

/// Deletes `match_follows` and `live_activities` rows past `expires_at` in batches
/// (`DELETE … WHERE ctid IN (SELECT ctid … LIMIT n)`), so no statement holds many row locks, and the
/// `feed_balls` history of matches no longer live for `feedHistoryRetention`, and the delivery record's rows idle for
/// `deliveryRecordRetention`.
struct TTLSweeper: Sendable {
    struct Settings: Sendable {
        /// `TTL_SWEEP_INTERVAL_MS`.
        var interval: Duration = .seconds(60)
        /// `TTL_BATCH_SIZE`: rows per DELETE.
        var batchSize = 500
        /// `TTL_MAX_BATCHES`: DELETEs per table per sweep (the rest waits for the next sweep).
        var maxBatches = 100
        /// `FEED_HISTORY_RETENTION_MS`: how long the ball history of a match no longer live is kept.
        var feedHistoryRetention: Duration = .seconds(48 * 3600)
        /// `DELIVERY_RECORD_RETENTION_MS`: how long a delivery record row is kept after its last push (7 days: a
        /// user's "it froze last night" is asked within days; the rows of a deleted device go at once).
        var deliveryRecordRetention: Duration = .seconds(7 * 24 * 3600)
    }

    let database: PostgresClient
    let settings: Settings
    let clock: any WallClock
    let metrics: ActivityManagementMetrics
    let logger: Logger

    /// One sweep; returns the rows deleted per table.
    func sweepOnce() async throws -> [String: Int] {
        let now = clock.now()
        var deleted: [String: Int] = [:]
        deleted["match_follows"] = try await FollowStore(database: database)
            .deleteExpired(before: now, batchSize: settings.batchSize, maxBatches: settings.maxBatches)
        deleted["live_activities"] = try await LiveActivityStore(database: database)
            .deleteExpired(before: now, batchSize: settings.batchSize, maxBatches: settings.maxBatches)
        metrics.ttlDeleted.increment(by: deleted.values.reduce(0, +))
        let cutoff = now.addingTimeInterval(-settings.feedHistoryRetention.seconds)
        let history = try await FeedBallStore(database: database)
            .deleteFinished(before: cutoff, batchSize: settings.batchSize, maxBatches: settings.maxBatches)
        deleted["feed_balls"] = history
        metrics.ttlDeleted.increment(by: history)
        let records = try await DeliveryRecordStore(database: database).sweep(
            before: now.addingTimeInterval(-settings.deliveryRecordRetention.seconds), batchSize: settings.batchSize, maxBatches: settings.maxBatches)
        deleted["push_deliveries"] = records
        metrics.ttlDeleted.increment(by: records)
        if deleted.values.contains(where: { $0 > 0 }) {
            logger.info("ttl sweep", deleted.mapValues(String.init))
        }
        return deleted
    }
}
