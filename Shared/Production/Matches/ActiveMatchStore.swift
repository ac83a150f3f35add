import Foundation
import Postgres

/// The one store of the `active_matches` table (one row per match the detector has seen): the detector's state and
/// the display state it derived (written only by the detector), the report's last event and the admin count. The
/// api's and the orchestrator's reads of a match's display state join it from `MatchStore` and `LiveActivityStore`.
///
/// The detector's state is stored once: `detector_state` without its display state, which is `display_state`;
/// `previous_scores`, `cooldowns` and `last_balls` are derived from `detector_state` by PostgreSQL. The store takes
/// and gives both as JSON: their shapes belong to the detector.
public struct ActiveMatchStore: Sendable {
    public let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// A match's stored detector state.
    public struct StoredState: Sendable {
        /// `detector_state`.
        public var detectorState: PostgresJSON
        /// `display_state`, nil before the first one.
        public var displayState: PostgresJSON?
    }

    /// The stored state, or nil for a match never seen (or a row written by someone else without one).
    public func detectorState(matchId: String) async throws -> StoredState? {
        let rows = try await database.query("SELECT detector_state, display_state FROM active_matches WHERE match_id = $1",
                                            [matchId], prepared: true)
        guard let row = rows.first, let state = try row.decode("detector_state", as: PostgresJSON?.self) else { return nil }
        return StoredState(detectorState: state, displayState: try row.decode("display_state", as: PostgresJSON?.self))
    }

    /// Upserts the state of `matchId` at `seq`. Never goes back: a row already at a higher seq (written by a newer
    /// snapshot) is left alone.
    /// - Parameter keyEventAt: when this snapshot produced a priority-10 event (Unix ms), recorded in
    ///   `last_key_event_at` so the api can shorten `retryAfterMs` in key moments; nil keeps the old value.
    public func saveDetectorState(matchId: String, seq: Int64, detectorState: PostgresJSON, displayState: PostgresJSON?,
                                  keyEventAt: Int64? = nil) async throws {
        try await database.execute(
            """
            INSERT INTO active_matches (match_id, display_state, seq, detector_state, last_updated_at, last_key_event_at)
            VALUES ($1, $2, $3, $4, now(), to_timestamp($5::double precision / 1000))
            ON CONFLICT (match_id) DO UPDATE SET
                display_state = EXCLUDED.display_state, seq = EXCLUDED.seq,
                detector_state = EXCLUDED.detector_state, last_updated_at = now(),
                last_key_event_at = COALESCE(EXCLUDED.last_key_event_at, active_matches.last_key_event_at)
            WHERE active_matches.seq <= EXCLUDED.seq
            """,
            [matchId, displayState, seq, detectorState, keyEventAt],
            prepared: true)
    }

    /// The detector's latest event of a match, as the operator's report shows it.
    public struct LastEvent: Sendable, Equatable {
        public var seq: Int64
        /// `last_updated_at`, ISO 8601 to the second, UTC.
        public var at: String
        /// The lock screen's headline of the display state.
        public var headline: String?
        public var resultLine: String?
        /// The display state's phase (`matchDisplayState`: live, inningsBreak, interrupted, ended…) and status text.
        public var phase: String? = nil
        public var statusText: String? = nil
        /// `last_updated_at`.
        public var updatedAt: Date? = nil
    }

    /// The match's latest event, nil before its first (seq 0 or no row).
    public func lastEvent(matchId: String) async throws -> LastEvent? {
        guard let row = try await database.query(
            """
            SELECT seq, to_char(last_updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at,
                   display_state->'lockScreen'->>'headline' AS headline, display_state->>'resultLine' AS result,
                   display_state->>'matchDisplayState' AS phase, display_state->>'statusText' AS status_text, last_updated_at
            FROM active_matches WHERE match_id = $1 AND seq > 0
            """, [matchId]).first else { return nil }
        return LastEvent(seq: try row.decode("seq"), at: try row.decode("at"), headline: try row.decode("headline", as: String?.self),
                         resultLine: try row.decode("result", as: String?.self), phase: try row.decode("phase", as: String?.self),
                         statusText: try row.decode("status_text", as: String?.self), updatedAt: try row.decode("last_updated_at", as: Date?.self))
    }

    /// How many matches are tracked: rows whose `poller_state` is not ended (the admin pipeline view).
    public func trackedCount() async throws -> Int {
        try await database.query(
            "SELECT count(*) AS n FROM active_matches WHERE poller_state <> \(ActiveMatchPollerState.ended.sqlLiteral)"
        ).first?.decode("n", as: Int.self) ?? 0
    }
}

/// `active_matches.poller_state` (the table's CHECK constraint lists exactly these).
public enum ActiveMatchPollerState: String, Sendable, CaseIterable {
    case polling
    case paused
    case ended
}
