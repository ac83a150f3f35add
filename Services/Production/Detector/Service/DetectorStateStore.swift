import Contracts
import Detection
import Foundation
import Matches
import Postgres

/// Loads and saves a match's `DetectorState` through `ActiveMatchStore` (the `active_matches` row of the match): the
/// state without its display state as `detector_state`, the display state (what the api and the orchestrator read)
/// as `display_state`. This type only encodes and decodes; the SQL is the store's.
struct DetectorStateStore: Sendable {
    let store: ActiveMatchStore

    init(client: PostgresClient) {
        store = ActiveMatchStore(database: client)
    }

    /// The stored state, or nil for a match never seen (or a row written by someone else without one).
    func load(matchId: String) async throws -> DetectorState? {
        guard let stored = try await store.detectorState(matchId: matchId) else { return nil }
        var state = try stored.detectorState.decode(DetectorState.self)
        state.displayState = try stored.displayState?.decode(UnifiedDisplayState.self)
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
        try await store.saveDetectorState(
            matchId: state.matchId, seq: state.seq, detectorState: try PostgresJSON(encoding: stored, encoder: encoder),
            displayState: try state.displayState.map { try PostgresJSON(encoding: $0, encoder: encoder) }, keyEventAt: keyEventAt)
    }
}
