import Foundation
import Postgres

/// The TTL sweep of the record (la-coordinator's `TTLSweeper`).
extension DeliveryRecordStore {
    // MARK: - Retention

    /// Deletes the rows of matches whose last push is older than `before` (a match's rows all go together, by its primary
    /// key prefix, `batchSize` at a time), then those matches' entries, and gaps detected before `before`.
    /// - Returns: rows deleted.
    public func sweep(before: Date, batchSize: Int, maxBatches: Int) async throws -> Int {
        let idle = try await database.query(
            "SELECT match_id FROM delivery_record_matches WHERE last_at < $1 ORDER BY last_at LIMIT 100", [before], prepared: true)
            .map { try $0.decode("match_id", as: String.self) }
        var deleted = 0
        var batches = 0
        for match in idle where batches < maxBatches {
            while batches < maxBatches {
                let count = try await database.execute(
                    """
                    DELETE FROM push_deliveries WHERE ctid = ANY(ARRAY(SELECT ctid FROM push_deliveries WHERE match_id = $1 LIMIT $2))
                    """, [match, batchSize])
                deleted += count
                batches += 1
                if count < batchSize {
                    // Gone: forget the match, unless a push arrived meanwhile (then its entry is newer).
                    try await database.execute("DELETE FROM delivery_jobs WHERE match_id = $1", [match])
                    try await database.execute("DELETE FROM delivery_outcomes WHERE match_id = $1", [match])
                    try await database.execute("DELETE FROM delivery_record_matches WHERE match_id = $1 AND last_at < $2", [match, before])
                    break
                }
            }
        }
        try await database.execute("DELETE FROM delivery_record_gaps WHERE detected_at < $1", [before])
        return deleted
    }
}
