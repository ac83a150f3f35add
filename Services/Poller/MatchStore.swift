import Contracts
import Cricket
import Foundation
import Postgres

/// The poller's reads and writes of the `matches` table (the schedule, `is_live`, the card, the
/// hash of the fixture last published, `feed_hash`, migration 3).
struct MatchStore: Sendable {
    let database: PostgresClient

    /// One match row as the poller writes it.
    struct Row: Sendable {
        var card: MatchCard
        var isLive: Bool
        /// Live but at close of play, stumps (`matches.close_of_play`, migration 6).
        var closeOfPlay: Bool

        init(card: MatchCard, isLive: Bool, closeOfPlay: Bool) {
            self.card = card
            self.isLive = isLive
            self.closeOfPlay = closeOfPlay
        }

        /// The row of `fixture`.
        init(_ fixture: SportMonksFixture) {
            self.init(card: MatchCardBuilder.card(fixture), isLive: MatchCardBuilder.isLive(fixture.status),
                      closeOfPlay: fixture.status.isCloseOfPlay)
        }
    }

    /// The hash of the fixture last published for `matchId`, if any.
    func publishedHash(_ matchId: String) async throws -> String? {
        try await database.query("SELECT feed_hash FROM matches WHERE match_id = $1", [matchId])
            .first?.decode("feed_hash", as: String?.self)
    }

    /// Records a published fixture: schedule fields, card, `is_live` and its hash.
    func recordPublished(_ row: Row, hash: String, at now: Date) async throws {
        try await database.execute(
            """
            INSERT INTO matches (match_id, starts_at, status, is_live, card, updated_at, close_of_play, feed_hash, feed_published_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $6)
            ON CONFLICT (match_id) DO UPDATE SET starts_at = EXCLUDED.starts_at, status = EXCLUDED.status,
                is_live = EXCLUDED.is_live, close_of_play = EXCLUDED.close_of_play, card = EXCLUDED.card, feed_hash = EXCLUDED.feed_hash,
                feed_published_at = EXCLUDED.feed_published_at, updated_at = EXCLUDED.updated_at
            """, try parameters(row, now) + [hash])
    }

    /// Writes a schedule entry; a row that already says the same is left alone.
    /// - Returns: true when the row was inserted or changed.
    @discardableResult
    func upsertSchedule(_ row: Row, at now: Date) async throws -> Bool {
        try await database.execute(
            """
            INSERT INTO matches (match_id, starts_at, status, is_live, card, updated_at, close_of_play)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (match_id) DO UPDATE SET starts_at = EXCLUDED.starts_at, status = EXCLUDED.status,
                is_live = EXCLUDED.is_live, close_of_play = EXCLUDED.close_of_play, card = EXCLUDED.card, updated_at = EXCLUDED.updated_at
            WHERE (matches.starts_at, matches.status, matches.is_live, matches.close_of_play, matches.card)
                IS DISTINCT FROM (EXCLUDED.starts_at, EXCLUDED.status, EXCLUDED.is_live, EXCLUDED.close_of_play, EXCLUDED.card)
            """, try parameters(row, now)) > 0
    }

    /// Ids of the matches marked live.
    func liveMatchIds() async throws -> [String] {
        try await database.query("SELECT match_id FROM matches WHERE is_live ORDER BY match_id").map {
            try $0.decode("match_id", as: String.self)
        }
    }

    /// Marks a match not live (it left /livescores and its fixture is gone).
    func markNotLive(_ matchId: String, at now: Date) async throws {
        try await database.execute("UPDATE matches SET is_live = false, updated_at = $2 WHERE match_id = $1 AND is_live",
                                   [matchId, now])
    }

    private func parameters(_ row: Row, _ now: Date) throws -> [PostgresValue?] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [row.card.matchId, Date(timeIntervalSince1970: TimeInterval(row.card.startsAt)), row.card.status,
                row.isLive, try PostgresJSON(encoding: row.card, encoder: encoder), now, row.closeOfPlay]
    }
}
