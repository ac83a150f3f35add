import Contracts
import Foundation
import Runtime

/// The canonical form of a fixture for change detection: JSON with sorted keys (the same fixture
/// gives the same bytes whatever order the server wrote its keys in), and a 64-bit FNV-1a hash of it
/// as 16 hex digits (stored in `matches.feed_hash`).
struct FixtureFingerprint: Sendable, Equatable {
    /// Canonical JSON bytes.
    let canonical: Data
    /// Hex hash of `canonical`.
    let hash: String

    init(_ fixture: JSONValue) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        canonical = try encoder.encode(fixture)
        hash = FNV1a.hex(FNV1a.hash64(canonical))
    }
}
