import Contracts
import Detection
import Foundation
import Postgres

/// Loads and saves a match's `DetectorState` in `active_matches` (one row per match).
struct DetectorStateStore: Sendable {
    let client: PostgresClient

    /// The stored state, or nil for a match never seen (or a row written by someone else without one).
    func load(matchId: String) async throws -> DetectorState? {
        let rows = try await client.query("SELECT detector_state FROM active_matches WHERE match_id = $1", [matchId],
                                          prepared: true)
        guard let row = rows.first, let json = try row.decode("detector_state", as: PostgresJSON?.self) else { return nil }
        return try json.decode(DetectorState.self)
    }

    /// Upserts the state and mirrors its parts into the seeds' columns. Never goes back: a row already at a
    /// higher seq (written by a newer snapshot) is left alone.
    /// - Parameter keyEventAt: when this snapshot produced a priority-10 event (Unix ms), recorded in
    ///   `last_key_event_at` so the api can shorten `retryAfterMs` in key moments; nil keeps the old value.
    func save(_ state: DetectorState, keyEventAt: Int64? = nil) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try await client.execute(
            """
            INSERT INTO active_matches (match_id, previous_scores, cooldowns, last_balls, display_state, seq,
                                        detector_state, last_updated_at, last_key_event_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, now(), to_timestamp($8::double precision / 1000))
            ON CONFLICT (match_id) DO UPDATE SET
                previous_scores = EXCLUDED.previous_scores, cooldowns = EXCLUDED.cooldowns,
                last_balls = EXCLUDED.last_balls, display_state = EXCLUDED.display_state, seq = EXCLUDED.seq,
                detector_state = EXCLUDED.detector_state, last_updated_at = now(),
                last_key_event_at = COALESCE(EXCLUDED.last_key_event_at, active_matches.last_key_event_at)
            WHERE active_matches.seq <= EXCLUDED.seq
            """,
            [state.matchId, try PostgresJSON(encoding: state.previousScores, encoder: encoder),
             try PostgresJSON(encoding: state.cooldowns, encoder: encoder),
             try PostgresJSON(encoding: state.lastBalls, encoder: encoder),
             try state.displayState.map { try PostgresJSON(encoding: $0, encoder: encoder) },
             state.seq, try PostgresJSON(encoding: state, encoder: encoder), keyEventAt],
            prepared: true)
    }
}
