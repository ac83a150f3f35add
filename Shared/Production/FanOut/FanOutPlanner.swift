import Contracts
import PushComposition

/// Up to ``PushJob/maximumTargets`` targets of one shard, numbered per shard from 0.
public struct PlannedChunk: Sendable, Equatable {
    /// The shard every target belongs to (``PushSharding/shard(token:shards:)``).
    public let shard: Int
    /// 0, 1, 2… within the shard, in the order targets were added.
    public let chunk: Int
    public let targets: [PushTarget]

    public init(shard: Int, chunk: Int, targets: [PushTarget]) {
        self.shard = shard
        self.chunk = chunk
        self.targets = targets
    }
}

/// Groups a stream of targets by shard into chunks of at most `maximumTargets`.
///
/// Memory is bounded by `shards × maximumTargets` targets however many are added: a chunk is
/// handed back as soon as its shard's buffer is full, and ``finish()`` returns the partial rest.
/// Chunk numbers depend only on the order targets arrive, so the same ordered input always gives
/// the same chunks (the basis of deterministic job ids).
public struct FanOutPlanner: Sendable {
    public let shards: Int
    public let maximumTargets: Int
    private var buffers: [[PushTarget]]
    private var nextChunk: [Int]
    /// Targets added so far.
    public private(set) var targetCount = 0

    /// - Parameters:
    ///   - shards: the shard count (at least 1).
    ///   - maximumTargets: the most targets per chunk (1…``PushJob/maximumTargets``).
    public init(shards: Int, maximumTargets: Int = PushJob.maximumTargets) {
        self.shards = max(1, shards)
        self.maximumTargets = min(max(1, maximumTargets), PushJob.maximumTargets)
        buffers = Array(repeating: [], count: self.shards)
        nextChunk = Array(repeating: 0, count: self.shards)
    }

    /// Adds a target; returns its shard's chunk when that chunk just became full.
    public mutating func add(_ target: PushTarget) -> PlannedChunk? {
        let shard = PushSharding.shard(token: target.token, shards: shards)
        targetCount += 1
        if buffers[shard].isEmpty { buffers[shard].reserveCapacity(maximumTargets) }
        buffers[shard].append(target)
        guard buffers[shard].count >= maximumTargets else { return nil }
        return take(shard)
    }

    /// The partial chunks still buffered, in shard order; the planner is empty afterwards.
    public mutating func finish() -> [PlannedChunk] {
        (0..<shards).compactMap { buffers[$0].isEmpty ? nil : take($0) }
    }

    private mutating func take(_ shard: Int) -> PlannedChunk {
        let chunk = PlannedChunk(shard: shard, chunk: nextChunk[shard], targets: buffers[shard])
        buffers[shard] = []
        nextChunk[shard] += 1
        return chunk
    }
}

extension EventPushPlan {
    /// The job for one planned chunk.
    /// - Parameter nowMilliseconds: Unix epoch milliseconds (createdAt; expiration counts from it).
    public func job(for chunk: PlannedChunk, nowMilliseconds: Int64) -> PushJob {
        job(shard: chunk.shard, chunk: chunk.chunk, targets: chunk.targets, nowMilliseconds: nowMilliseconds)
    }
}
