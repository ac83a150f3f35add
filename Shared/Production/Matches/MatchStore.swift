import Contracts
import Foundation
import Postgres

/// The one store of the `matches` table: the poller's writes (the schedule, `is_live`, `close_of_play`, the
/// card, the hash of the fixture last published, `feed_hash`), the api's reads of a match with the
/// detector's display state (joined from `active_matches`, whose store is `ActiveMatchStore`), and the operator's reads.
public struct MatchStore: Sendable {
    public let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// One match row as the poller writes it.
    public struct Row: Sendable {
        public var card: MatchCard
        public var isLive: Bool
        /// Live but at close of play, stumps (`matches.close_of_play`, migration 6).
        public var closeOfPlay: Bool

        public init(card: MatchCard, isLive: Bool, closeOfPlay: Bool) {
            self.card = card
            self.isLive = isLive
            self.closeOfPlay = closeOfPlay
        }
    }

    /// The hash of the fixture last published for `matchId`, if any.
    public func publishedHash(_ matchId: String) async throws -> String? {
        try await database.query("SELECT feed_hash FROM matches WHERE match_id = $1", [matchId])
            .first?.decode("feed_hash", as: String?.self)
    }

    /// Records that the fixture with `hash` was published (its row is written before publishing, by
    /// `upsertSchedule`).
    public func recordPublished(_ hash: String, matchId: String, at now: Date) async throws {
        try await database.execute("UPDATE matches SET feed_hash = $2, feed_published_at = $3 WHERE match_id = $1",
                                   [matchId, hash, now])
    }

    /// Writes a schedule entry; a row that already says the same is left alone.
    /// - Returns: true when the row was inserted or changed.
    @discardableResult
    public func upsertSchedule(_ row: Row, at now: Date) async throws -> Bool {
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

    /// True while the match is at close of play (`close_of_play`, written before the stumps snapshot is
    /// published). la-coordinator skips a day's end handled after play resumed (a lagging or redelivered
    /// event): it would end the new day's activities.
    public func isAtCloseOfPlay(_ matchId: String) async throws -> Bool {
        try await database.query("SELECT close_of_play FROM matches WHERE match_id = $1", [matchId])
            .first?.decode("close_of_play", as: Bool.self) ?? false
    }

    /// Ids of the matches marked live.
    public func liveMatchIds() async throws -> [String] {
        try await database.query("SELECT match_id FROM matches WHERE is_live ORDER BY match_id").map {
            try $0.decode("match_id", as: String.self)
        }
    }

    /// Marks a match not live (it left /livescores and its fixture is gone).
    public func markNotLive(_ matchId: String, at now: Date) async throws {
        try await database.execute("UPDATE matches SET is_live = false, updated_at = $2 WHERE match_id = $1 AND is_live",
                                   [matchId, now])
    }

    /// How many matches are marked live (the admin pipeline view).
    public func liveCount() async throws -> Int {
        try await database.query("SELECT count(*) AS n FROM matches WHERE is_live").first?.decode("n", as: Int.self) ?? 0
    }

    /// A match as the operator's report heads it.
    public struct Summary: Sendable, Equatable {
        /// The card's title.
        public var title: String?
        /// `matches.status` (the feed's words).
        public var status: String
        public var isLive: Bool

        public init(title: String?, status: String, isLive: Bool) {
            self.title = title
            self.status = status
            self.isLive = isLive
        }
    }

    /// The match's title, status and live flag; nil when it is not in the schedule.
    public func summary(matchId: String) async throws -> Summary? {
        guard let row = try await database.query(
            "SELECT card->>'title' AS title, status, is_live FROM matches WHERE match_id = $1", [matchId]).first else { return nil }
        return Summary(title: try row.decode("title", as: String?.self), status: try row.decode("status"), isLive: try row.decode("is_live"))
    }

    private func parameters(_ row: Row, _ now: Date) throws -> [PostgresValue?] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [row.card.matchId, Date(timeIntervalSince1970: TimeInterval(row.card.startsAt)), row.card.status,
                row.isLive, try PostgresJSON(encoding: row.card, encoder: encoder), now, row.closeOfPlay]
    }

    // MARK: - Reads (api)

    /// What the follow flow needs to know about a match.
    public struct MatchInfo: Sendable {
        public var isLive: Bool
        public var startsAt: Date?
        /// The schedule card (a follow reads it only when there is no display state: it is then the
        /// fallback of the start payload).
        public var card: MatchCard?
        public var displayState: UnifiedDisplayState?
        public var seq: Int64
        /// `displayState` encoded as the api answers it, when it came through `DisplayStateCache`.
        public var displayStateJSON: [UInt8]? = nil

        public init(isLive: Bool, startsAt: Date?, card: MatchCard?, displayState: UnifiedDisplayState?, seq: Int64,
                    displayStateJSON: [UInt8]? = nil) {
            self.isLive = isLive
            self.startsAt = startsAt
            self.card = card
            self.displayState = displayState
            self.seq = seq
            self.displayStateJSON = displayStateJSON
        }
    }

    /// The display state and seq of a match (nil state when the detector has none).
    public func displayState(matchId: String, on connection: PostgresConnection) async throws -> (state: UnifiedDisplayState?, card: MatchCard?, seq: Int64) {
        let rows = try await connection.query(
            """
            SELECT a.display_state::text AS display_state, COALESCE(a.seq, 0) AS seq, m.card::text AS card
            FROM (SELECT $1::text AS match_id) k
            LEFT JOIN active_matches a ON a.match_id = k.match_id LEFT JOIN matches m ON m.match_id = k.match_id
            """, [matchId], prepared: true)
        guard let row = rows.first else { return (nil, nil, 0) }
        return (Self.displayState(try row.decode("display_state", as: String?.self)), Self.card(try row.decode("card", as: String?.self)),
                try row.decode("seq"))
    }

    /// Cards of the matches starting in [start, start + 1 day), by start time.
    public func schedule(dayStart: Date) async throws -> [MatchCard] {
        let rows = try await database.query(
            "SELECT card::text AS card FROM matches WHERE starts_at >= $1 AND starts_at < $2 ORDER BY starts_at, match_id LIMIT 500",
            [dayStart, dayStart.addingTimeInterval(86_400)], prepared: true)
        return try rows.compactMap { Self.card(try $0.decode("card", as: String?.self)) }
    }

    /// One live match's state and whether it had a key moment recently.
    public struct LiveMatch: Sendable {
        public var state: UnifiedDisplayState
        public var lastKeyEventAt: Date?
        /// Alert cooldown expiries (Unix ms) the detector keeps per event kind.
        public var cooldownUntil: [Int64]

        public init(state: UnifiedDisplayState, lastKeyEventAt: Date?, cooldownUntil: [Int64]) {
            self.state = state
            self.lastKeyEventAt = lastKeyEventAt
            self.cooldownUntil = cooldownUntil
        }
    }

    /// Display states of live matches (those the detector has described).
    public func live() async throws -> [LiveMatch] {
        let rows = try await database.query(
            """
            SELECT a.display_state::text AS display_state, a.last_key_event_at, a.cooldowns::text AS cooldowns
            FROM matches m JOIN active_matches a ON a.match_id = m.match_id
            WHERE m.is_live AND a.display_state IS NOT NULL ORDER BY m.starts_at, m.match_id LIMIT 200
            """, prepared: true)
        return try rows.compactMap { row in
            guard let state = Self.displayState(try row.decode("display_state", as: String?.self)) else { return nil }
            let cooldowns = (try row.decode("cooldowns", as: String?.self)).flatMap {
                try? JSONDecoder().decode([String: Int64].self, from: Data($0.utf8))
            }
            return LiveMatch(
                state: state, lastKeyEventAt: try row.decode("last_key_event_at", as: Date?.self),
                cooldownUntil: cooldowns.map { Array($0.values) } ?? [])
        }
    }

    /// Card, display state, live flag and whether `userId` follows it.
    public func detail(matchId: String, userId: String) async throws -> (MatchInfo, following: Bool)? {
        let rows = try await database.query(
            """
            SELECT m.is_live, m.starts_at, m.card::text AS card, a.display_state::text AS display_state, COALESCE(a.seq, 0) AS seq,
                   EXISTS (SELECT 1 FROM match_follows f WHERE f.user_id = $2 AND f.match_id = $1) AS following
            FROM matches m LEFT JOIN active_matches a ON a.match_id = m.match_id WHERE m.match_id = $1
            """, [matchId, userId], prepared: true)
        guard let row = rows.first else { return nil }
        let info = MatchInfo(
            isLive: try row.decode("is_live"), startsAt: try row.decode("starts_at", as: Date?.self),
            card: Self.card(try row.decode("card", as: String?.self)),
            displayState: Self.displayState(try row.decode("display_state", as: String?.self)), seq: try row.decode("seq"))
        return (info, try row.decode("following"))
    }

    public static func card(_ text: String?) -> MatchCard? {
        text.flatMap { try? JSONDecoder().decode(MatchCard.self, from: Data($0.utf8)) }
    }

    public static func displayState(_ text: String?) -> UnifiedDisplayState? {
        text.flatMap { try? JSONDecoder().decode(UnifiedDisplayState.self, from: Data($0.utf8)) }
    }
}
