import Contracts
import Detection
import Foundation
import Postgres

/// Loads and saves a match's `DetectorState` in `active_matches` (one row per match), stored once: the state in
/// `detector_state` without its display state, which is `display_state` (what the api and the orchestrator
/// read); `previous_scores`, `cooldowns` and `last_balls` are derived from `detector_state` by PostgreSQL.
struct DetectorStateStore: Sendable {
    let client: PostgresClient

    /// The stored state, or nil for a match never seen (or a row written by someone else without one).
    func load(matchId: String) async throws -> DetectorState? {
        let rows = try await client.query("SELECT detector_state, display_state FROM active_matches WHERE match_id = $1",
                                          [matchId], prepared: true)
        guard let row = rows.first, let json = try row.decode("detector_state", as: PostgresJSON?.self) else { return nil }
        var state = try json.decode(DetectorState.self)
        state.displayState = try row.decode("display_state", as: PostgresJSON?.self)?.decode(UnifiedDisplayState.self)
        return state
    }

    /// Upserts the state (its display state in `display_state`, the rest in `detector_state`). Never goes back: a
    /// row already at a higher seq (written by a newer snapshot) is left alone.
    /// - Parameter keyEventAt: when this snapshot produced a priority-10 event (Unix ms), recorded in
    ///   `last_key_event_at` so the api can shorten `retryAfterMs` in key moments; nil keeps the old value.
    func save(_ state: DetectorState, keyEventAt: Int64? = nil) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var stored = state
        stored.displayState = nil
        try await client.execute(
            """
            INSERT INTO active_matches (match_id, display_state, seq, detector_state, last_updated_at, last_key_event_at)
            VALUES ($1, $2, $3, $4, now(), to_timestamp($5::double precision / 1000))
            ON CONFLICT (match_id) DO UPDATE SET
                display_state = EXCLUDED.display_state, seq = EXCLUDED.seq,
                detector_state = EXCLUDED.detector_state, last_updated_at = now(),
                last_key_event_at = COALESCE(EXCLUDED.last_key_event_at, active_matches.last_key_event_at)
            WHERE active_matches.seq <= EXCLUDED.seq
            """,
            [state.matchId, try state.displayState.map { try PostgresJSON(encoding: $0, encoder: encoder) },
             state.seq, try PostgresJSON(encoding: stored, encoder: encoder), keyEventAt],
            prepared: true)
    }
}
