import Runtime

/// Which shard a push token belongs to: FNV-1a 64 of the token's UTF-8 text, modulo the shard count.
///
/// Every producer of `push.jobs` (la-coordinator, api, poller) keys a job "matchId:shard" with this
/// function and the same shard count (`PUSH_SHARDS`, default ``defaultShards``), so all pushes to one
/// token land on one partition and stay in order.
public enum PushSharding {
    /// The shard count when `PUSH_SHARDS` is not set.
    public static let defaultShards = 64

    /// The shard of `token` in `0..<shards` (`shards` below 1 is treated as 1).
    public static func shard(token: String, shards: Int) -> Int {
        Int(FNV1a.hash64(token) % UInt64(max(1, shards)))
    }
}

extension PushJob {
    /// The Kafka key of a token job: "matchId:shard", the shard of its first target's token (a job's targets are all
    /// of one shard; a single-device job's is its device's), so every push of one device for one match is in one
    /// partition, in order.
    public func shardKey(shards: Int) -> String {
        PushJob.key(matchId: matchId, shard: PushSharding.shard(token: targets.first?.token ?? "", shards: shards))
    }
}
