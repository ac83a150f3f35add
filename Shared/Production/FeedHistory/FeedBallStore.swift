import Contracts
import Foundation
import Postgres
import Runtime

/// Why the poller's chain could not be extended.
public enum FeedHistoryError: Error, Equatable, CustomStringConvertible {
    /// `feed_cursors` no longer says `expected` for the match: another poller extended the chain, or the TTL
    /// sweep deleted it. The caller forgets its cursor and reads it again.
    case cursorMoved(matchId: String, expected: Int64)

    public var description: String {
        switch self {
        case .cursorMoved(let matchId, let expected):
            "match \(matchId): the feed cursor is no longer at \(expected) (another poller, or swept)"
        }
    }
}

/// The `feed_cursors` and `feed_balls` tables (migration 5): the chain position of each match and every
/// version of every delivery the poller published, by the `seq` of the snapshot that carried it. The poller
/// records a plan (moving the cursor by compare-and-set) before publishing it; the detector reads the
/// deliveries as of a `seq` when it missed a link of the chain; the TTL sweep deletes finished matches.
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

    /// The `seq` the match's chain is at (0: none recorded).
    public func cursor(matchId: String) async throws -> Int64 {
        try await database.query("SELECT seq FROM feed_cursors WHERE match_id = $1", [matchId], prepared: true)
            .first?.decode("seq", as: Int64.self) ?? 0
    }

    /// Records a plan, in one transaction: moves the match's cursor from `after` to the plan's last `seq` (only
    /// if it is still at `after`) and writes the versions its pages carry. Once this returns the plan is part
    /// of the chain, published or not: a page that never reaches the detector is rebuilt from these rows.
    /// - Parameter after: the cursor's `seq` before the plan.
    /// - Throws: `FeedHistoryError.cursorMoved` when the cursor is no longer at `after` (nothing is written).
    public func record(matchId: String, after: Int64, _ plan: FixtureSnapshotPager.Plan) async throws {
        var rows = plan.changed.map { Row(id: $0.id, seq: $0.seq, hash: Int64(bitPattern: $0.hash), ball: $0.json) }
        rows += plan.removed.map { Row(id: $0, seq: after + 1, hash: 0, ball: nil) }
        let json = try PostgresJSON(encoding: rows)
        try await database.withTransaction { connection in
            let moved = if after == 0 {
                try await connection.query(
                    "INSERT INTO feed_cursors (match_id, seq) VALUES ($1, $2) ON CONFLICT (match_id) DO NOTHING",
                    [matchId, plan.cursor.seq]).affectedRows
            } else {
                try await connection.query(
                    "UPDATE feed_cursors SET seq = $3, recorded_at = now() WHERE match_id = $1 AND seq = $2",
                    [matchId, after, plan.cursor.seq]).affectedRows
            }
            guard moved == 1 else { throw FeedHistoryError.cursorMoved(matchId: matchId, expected: after) }
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
    /// row was last updated before `cutoff`, and then their cursors (a later publication starts a full list).
    /// Returns the history rows deleted.
    public func deleteFinished(before cutoff: Date, batchSize: Int, maxBatches: Int) async throws -> Int {
        let total = try await database.executeInBatches(
            """
            DELETE FROM feed_balls WHERE ctid IN (
                SELECT f.ctid FROM feed_balls f JOIN matches m USING (match_id)
                WHERE NOT m.is_live AND m.updated_at < $1 LIMIT $2)
            """, [cutoff], batchSize: batchSize, maxBatches: maxBatches)
        try await database.execute(
            """
            DELETE FROM feed_cursors c USING matches m
            WHERE c.match_id = m.match_id AND NOT m.is_live AND m.updated_at < $1
                AND NOT EXISTS (SELECT 1 FROM feed_balls f WHERE f.match_id = c.match_id)
            """, [cutoff])
        return total
    }
}
