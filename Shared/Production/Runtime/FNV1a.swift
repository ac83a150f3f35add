/// 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3): the one non-cryptographic hash of
/// the project (push shards, advisory-lock keys, fixture and ball fingerprints, the replay's stable ids).
/// Stable across processes and machines, unlike `Hasher`.
public struct FNV1a: Sendable {
    /// The hash of what was combined so far.
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    /// Feeds `bytes`.
    public mutating func combine<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    /// Feeds one byte.
    public mutating func combine(_ byte: UInt8) {
        value ^= UInt64(byte)
        value &*= 0x0000_0100_0000_01b3
    }

    /// Feeds a whole 64-bit word in one step (xor, then multiply: FNV-1a's step on a word rather than a byte;
    /// stable, and 8 times fewer steps for fingerprints of numbers and lengths).
    public mutating func combine(_ number: UInt64) {
        value ^= number
        value &*= 0x0000_0100_0000_01b3
    }

    /// The hash of `bytes`.
    public static func hash64<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hasher = FNV1a()
        hasher.combine(bytes)
        return hasher.value
    }

    /// The hash of `text`'s UTF-8 bytes, read from its contiguous storage (the push sharding of every fan-out
    /// target goes through here; a generic walk of `String.UTF8View` across the module boundary cost 9 % of
    /// la-coordinator's CPU in a million-follower fan-out).
    public static func hash64(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { bytes in
            var hasher = FNV1a()
            hasher.combine(bytes)
            return hasher.value
        }
    }

    /// `value` as 16 lower-case hex digits.
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
