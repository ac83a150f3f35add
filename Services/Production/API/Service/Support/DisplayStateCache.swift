import Contracts
import Foundation
import HTTPServer
import Synchronization
import Matches
import Runtime

/// Decoded display states by their exact JSON text, so that the many follows of a live match decode
/// its `active_matches.display_state` once per change instead of once per request.
///
/// The key is the whole text, so a changed state is a different key and a stale value can never be
/// returned. Bounded: when full, every entry is dropped (the live matches repopulate it at once).
final class DisplayStateCache: Sendable {
    /// Most texts kept (one per live match and state version in practice).
    let capacity: Int
    private let states = LockedValue<[String: Entry]>([:])

    init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
    }

    /// The state `text` decodes to (nil for nil or undecodable text, as `MatchStore.displayState`).
    func state(_ text: String?) -> UnifiedDisplayState? { entry(text)?.state }

    /// The state `text` decodes to and that state encoded as the api answers it (`HTTPResponse.jsonEncoder`),
    /// both made once per text.
    func entry(_ text: String?) -> Entry? {
        guard let text else { return nil }
        if let cached = states.withLock({ $0[text] }) { return cached }
        guard let state = MatchStore.displayState(text),
              let json = try? HTTPResponse.jsonEncoder().encode(state) else { return nil }
        let entry = Entry(state: state, json: Array(json))
        states.withLock { states in
            if states.count >= capacity { states.removeAll(keepingCapacity: true) }
            states[text] = entry
        }
        return entry
    }

    /// A decoded state and its encoded form.
    struct Entry: Sendable {
        var state: UnifiedDisplayState
        var json: [UInt8]
    }
}
