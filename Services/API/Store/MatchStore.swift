import Contracts
import Foundation
import Postgres

/// Reads of the schedule, the live display states and the app configuration (tables written by
/// the poller and the detector).
struct MatchStore: Sendable {
    let database: PostgresClient

    /// What the follow flow needs to know about a match.
    struct MatchInfo: Sendable {
        var isLive: Bool
        var startsAt: Date?
        /// The schedule card (a follow reads it only when there is no display state: it is then the
        /// fallback of the start payload).
        var card: MatchCard?
        var displayState: UnifiedDisplayState?
        var seq: Int64
        /// `displayState` encoded as the api answers it, when it came through `DisplayStateCache`.
        var displayStateJSON: [UInt8]? = nil
    }

    /// The display state and seq of a match (nil state when the detector has none).
    func displayState(matchId: String, on connection: PostgresConnection) async throws -> (state: UnifiedDisplayState?, card: MatchCard?, seq: Int64) {
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
    func schedule(dayStart: Date) async throws -> [MatchCard] {
        let rows = try await database.query(
            "SELECT card::text AS card FROM matches WHERE starts_at >= $1 AND starts_at < $2 ORDER BY starts_at, match_id LIMIT 500",
            [dayStart, dayStart.addingTimeInterval(86_400)], prepared: true)
        return try rows.compactMap { Self.card(try $0.decode("card", as: String?.self)) }
    }

    /// One live match's state and whether it had a key moment recently.
    struct LiveMatch: Sendable {
        var state: UnifiedDisplayState
        var lastKeyEventAt: Date?
        /// Alert cooldown expiries (Unix ms) the detector keeps per event kind.
        var cooldownUntil: [Int64]
    }

    /// Display states of live matches (those the detector has described).
    func live() async throws -> [LiveMatch] {
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
    func detail(matchId: String, userId: String) async throws -> (MatchInfo, following: Bool)? {
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

    /// The single app_config row (defaults when it is missing).
    func appConfig() async throws -> APIBodies.AppConfigResponse {
        let rows = try await database.query("SELECT min_version, maintenance, message FROM app_config LIMIT 1", prepared: true)
        guard let row = rows.first else { return .init(minVersion: "1.0.0", maintenance: false, message: "") }
        return .init(minVersion: try row.decode("min_version"), maintenance: try row.decode("maintenance"), message: try row.decode("message"))
    }

    /// Row counts for the admin pipeline view.
    func counts() async throws -> [String: Int] {
        let rows = try await database.query(
            """
            SELECT (SELECT count(*) FROM matches WHERE is_live) AS live_matches,
                   (SELECT count(*) FROM active_matches WHERE poller_state <> 'ended') AS tracked_matches,
                   (SELECT count(*) FROM live_activities WHERE status = 'active') AS active_activities,
                   (SELECT count(*) FROM live_activities WHERE status = 'pending') AS pending_activities,
                   (SELECT count(*) FROM match_follows) AS follows,
                   (SELECT count(*) FROM devices) AS devices
            """)
        guard let row = rows.first else { return [:] }
        var counts: [String: Int] = [:]
        for (key, column) in [("liveMatches", "live_matches"), ("trackedMatches", "tracked_matches"), ("activeActivities", "active_activities"),
                              ("pendingActivities", "pending_activities"), ("follows", "follows"), ("devices", "devices")] {
            counts[key] = try row.decode(column, as: Int.self)
        }
        return counts
    }

    static func card(_ text: String?) -> MatchCard? {
        text.flatMap { try? JSONDecoder().decode(MatchCard.self, from: Data($0.utf8)) }
    }

    static func displayState(_ text: String?) -> UnifiedDisplayState? {
        text.flatMap { try? JSONDecoder().decode(UnifiedDisplayState.self, from: Data($0.utf8)) }
    }
}
