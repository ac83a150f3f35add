import Kafka
import Synchronization
import Runtime

/// Which offsets may be committed, per partition, when jobs finish out of order.
///
/// Every consumed message is `begin`-ed in poll order and `finish`-ed when its job has a final
/// answer for every target. The committable next-offset of a partition is the lowest offset still
/// pending (everything before it is done), or one past the highest finished offset when nothing
/// is pending. `takeCommittable()` returns only partitions whose committable offset moved since
/// the last call, so one committing task sees monotonic offsets. Revoked partitions are
/// forgotten (their late `finish` calls are ignored; the new owner re-reads from the last commit).
/// A `KafkaConsumerService` with the `.outOfOrder` policy begins each message and commits from it.
public final class CommitTracker: Sendable {
    private struct PartitionState {
        var pending: Set<Int64> = []
        var highestFinished: Int64 = -1
        /// The next-offset last handed out for commit (or the first offset read).
        var lastTaken: Int64

        var committable: Int64? {
            if let lowest = pending.min() { return lowest > lastTaken ? lowest : nil }
            let next = highestFinished + 1
            return next > lastTaken ? next : nil
        }
    }

    private let partitions = LockedValue<[KafkaTopicPartition: PartitionState]>([:])

    public init() {}

    /// A message was taken off `partition` and its work begins.
    public func begin(_ partition: KafkaTopicPartition, offset: Int64) {
        partitions.withLock { partitions in
            // The first offset read is where the group already stands: nothing to commit before it.
            _ = partitions[partition, default: PartitionState(lastTaken: offset)].pending.insert(offset)
        }
    }

    /// The message's work is final (delivered, token-invalid, dead-lettered or skipped as poison).
    public func finish(_ partition: KafkaTopicPartition, offset: Int64) {
        partitions.withLock { partitions in
            guard var state = partitions[partition], state.pending.remove(offset) != nil else { return }
            state.highestFinished = max(state.highestFinished, offset)
            partitions[partition] = state
        }
    }

    /// Next-offsets to commit that moved since the last call; marks them as taken.
    public func takeCommittable() -> [KafkaTopicPartition: Int64] {
        partitions.withLock { partitions in
            var result: [KafkaTopicPartition: Int64] = [:]
            for (partition, state) in partitions {
                guard let next = state.committable else { continue }
                result[partition] = next
                partitions[partition]!.lastTaken = next
            }
            return result
        }
    }

    /// Forgets revoked partitions.
    public func revoke(_ revoked: [KafkaTopicPartition]) {
        partitions.withLock { partitions in
            for partition in revoked { partitions[partition] = nil }
        }
    }

    /// Messages begun but not finished, over all partitions.
    public var pendingCount: Int { partitions.withLock { $0.values.reduce(0) { $0 + $1.pending.count } } }
}
