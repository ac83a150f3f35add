import Contracts
import Foundation
import Postgres
import Runtime

/// The `feed_balls` table (migration 5): every version of every delivery the poller published, by the
/// `seq` of the snapshot that carried it. The poller records a plan before publishing it; the detector reads
/// the deliveries as of a `seq` when it missed a link of the chain; the TTL sweep deletes finished matches.
public struct FeedBallStore: Sendable {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    private struct Row: Encodable {
        var id: Int
        var seq: Int64
        var hash: Int64
        var ball: JSONValue?
    }

    /// Writes the versions a plan publishes, in one transaction, after deleting any version above
    /// `after` (left by a plan recorded but never published: the poller died in between).
    /// - Parameter after: the cursor's `seq` before the plan.
    public func record(matchId: String, after: Int64, _ plan: FixtureSnapshotPager.Plan) async throws {
        var rows = plan.changed.map { Row(id: $0.id, seq: $0.seq, hash: Int64(bitPattern: $0.hash), ball: $0.json) }
        rows += plan.removed.map { Row(id: $0, seq: after + 1, hash: 0, ball: nil) }
        let json = try PostgresJSON(encoding: rows)
        try await database.withTransaction { connection in
            _ = try await connection.query("DELETE FROM feed_balls WHERE match_id = $1 AND seq > $2", [matchId, after])
            guard !rows.isEmpty else { return }
            _ = try await connection.query(
                """
                INSERT INTO feed_balls (match_id, ball_id, seq, hash, ball)
                SELECT $1, (e->>'id')::bigint, (e->>'seq')::bigint, (e->>'hash')::bigint, e->'ball'
                FROM jsonb_array_elements($2::jsonb) AS e
                """, [matchId, json])
        }
    }

    /// The fingerprints of the deliveries as of `seq` (the poller's cursor after a restart).
    public func hashes(matchId: String, asOf seq: Int64) async throws -> [Int: UInt64] {
        guard seq > 0 else { return [:] }
        let rows = try await database.query(
            """
            SELECT ball_id, hash FROM (
                SELECT DISTINCT ON (ball_id) ball_id, hash, ball IS NULL AS removed FROM feed_balls
                WHERE match_id = $1 AND seq <= $2 ORDER BY ball_id, seq DESC) AS latest
            WHERE NOT removed
            """, [matchId, seq])
        var hashes: [Int: UInt64] = [:]
        for row in rows {
            hashes[try row.decode("ball_id", as: Int.self)] = UInt64(bitPattern: try row.decode("hash", as: Int64.self))
        }
        return hashes
    }

    /// The JSON of every delivery as of `seq`, in delivery (id) order.
    public func balls(matchId: String, asOf seq: Int64) async throws -> [String] {
        try await database.query(
            """
            SELECT ball::text AS ball FROM (
                SELECT DISTINCT ON (ball_id) ball_id, ball FROM feed_balls
                WHERE match_id = $1 AND seq <= $2 ORDER BY ball_id, seq DESC) AS latest
            WHERE ball IS NOT NULL ORDER BY ball_id
            """, [matchId, seq], prepared: true).map { try $0.decode("ball", as: String.self) }
    }

    /// Deletes, in batches of `batchSize` (at most `maxBatches`), the history of matches no longer live whose
    /// row was last updated before `cutoff`. Returns the rows deleted.
    public func deleteFinished(before cutoff: Date, batchSize: Int, maxBatches: Int) async throws -> Int {
        var total = 0
        for _ in 0..<max(1, maxBatches) {
            let count = try await database.execute(
                """
                DELETE FROM feed_balls WHERE ctid IN (
                    SELECT f.ctid FROM feed_balls f JOIN matches m USING (match_id)
                    WHERE NOT m.is_live AND m.updated_at < $1 LIMIT $2)
                """, [cutoff, batchSize])
            total += count
            if count < batchSize { break }
        }
        return total
    }
}
