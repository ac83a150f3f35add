/// Which shard (and so which partition key "matchId:shard") a token's pushes use:
/// FNV-1a 64 of the token's UTF-8 text, modulo the shard count. Stable across processes and
/// releases, so one token's pushes stay in order on one partition.
enum PushSharding {
    static func fnv1a64(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    static func shard(token: String, shards: Int) -> Int {
        Int(fnv1a64(token) % UInt64(max(1, shards)))
    }
}
