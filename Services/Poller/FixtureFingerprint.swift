import Contracts
import Foundation

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
        hash = Self.fnv1a(canonical)
    }

    static func fnv1a(_ bytes: Data) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
