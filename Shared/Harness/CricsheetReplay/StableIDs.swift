import Runtime

/// Deterministic integer ids for the replay (same input → same id on every run and machine).
public enum StableIDs {
    /// A player/official id: the Cricsheet registry hex id read as a number (e.g. "249d60c9" → 618488009);
    /// falls back to a hash of the name when the registry has no entry.
    public static func person(name: String, registryHex: String?) -> Int {
        if let hex = registryHex, let value = Int(hex, radix: 16) { return value }
        return 1_000_000_000_000 + hash("person:" + name) % 1_000_000_000
    }

    /// An id in 10_000 ..< 100_000 from a namespace and a name (teams, venues, leagues, seasons, stages).
    public static func entity(_ namespace: String, _ name: String) -> Int {
        10_000 + hash(namespace + ":" + name) % 90_000
    }

    /// 64-bit FNV-1a over the UTF-8 bytes, kept non-negative.
    public static func hash(_ text: String) -> Int {
        Int(FNV1a.hash64(text) & 0x3fff_ffff_ffff_ffff)
    }
}
