/// Which shard a push token belongs to: FNV-1a 64 of the token's UTF-8 text, modulo the shard count.
///
/// Every producer of `push.jobs` (la-coordinator, api, poller) keys a job "matchId:shard" with this
/// function and the same shard count (`PUSH_SHARDS`, default ``defaultShards``), so all pushes to one
/// token land on one partition and stay in order.
public enum PushSharding {
    /// The shard count when `PUSH_SHARDS` is not set.
    public static let defaultShards = 64

    /// FNV-1a 64-bit hash of `text`'s UTF-8 bytes (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
    public static func fnv1a64(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The shard of `token` in `0..<shards` (`shards` below 1 is treated as 1).
    public static func shard(token: String, shards: Int) -> Int {
        Int(fnv1a64(token) % UInt64(max(1, shards)))
    }
}
