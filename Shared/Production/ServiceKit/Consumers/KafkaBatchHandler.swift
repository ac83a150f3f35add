import Kafka
import Runtime

/// The work of a ``KafkaConsumerService`` with the `.perBatchLatestWins` policy: it processes batches, may hold
/// some of their work back (a held update), and says how far each partition may be committed.
///
/// The service owns a copy of the handler for as long as it runs (the `mutating` calls change that copy).
/// `stillOwned` throws a ``KafkaError`` with ``KafkaError/meansAssignmentLost`` once the member's assignment is
/// gone; a handler calls it before each retry and lets it propagate: the service then drops the batch (and,
/// through ``keepOnly(_:)``, everything held) for the partitions' next owner.
public protocol KafkaBatchHandler: Sendable {
    /// How long to wait for a batch's first message (shorter while held work waits for its time).
    var pollTimeout: Duration { get }
    /// Per partition, the offset of the first message whose work is held back: commits never go past it.
    var commitFloor: [KafkaTopicPartition: Int64] { get }
    /// Before each poll: work due without a new message (releasing what was held).
    mutating func idle(stillOwned: () throws -> Void) async throws
    /// Processes one batch; returns, per partition, the next offset after the messages it covered.
    mutating func process(_ batch: [KafkaMessage], stillOwned: () throws -> Void) async throws -> [KafkaTopicPartition: Int64]
    /// The assignment changed: work held for partitions not in `owned` is their next owner's.
    mutating func keepOnly(_ owned: Set<KafkaTopicPartition>)
    /// Graceful stop: finish what is held, so that it is committed now rather than redone by the next owner.
    mutating func finish() async
    /// A commit failed and will be retried (count it).
    func commitFailed()
}

extension KafkaBatchHandler {
    public func commitFailed() {}
}

/// The `.perBatchLatestWins` loop of ``KafkaConsumerService``.
struct BatchCommitLoop: Sendable {
    let consumer: KafkaConsumer
    let logger: Logger
    let maximumMessages: Int
    let drainWait: Duration

    /// Runs until graceful shutdown is requested (after committing the batch in hand and what `finish` released),
    /// the task is cancelled, or the consumer is closed.
    func run<Handler: KafkaBatchHandler>(_ initial: Handler) async throws {
        var handler = initial
        let committer = KafkaOffsetCommitter(consumer: consumer, logger: logger)
        let stillOwned = { [consumer] in try consumer.requireAssignment() }
        /// The next offset after everything processed, per partition (committed up to the handler's floor).
        var processed: [KafkaTopicPartition: Int64] = [:]
        var generation = consumer.assignmentGeneration
        func commit(now: Bool) async {
            if case .willRetry = await committer.commit(now: now) { handler.commitFailed() }
        }
        while !Task.isCancelled && !GracefulShutdown.isRequested {
            await commit(now: false)
            if consumer.assignmentGeneration != generation {
                // Held work of partitions now elsewhere is their next owner's (read again from the commit).
                generation = consumer.assignmentGeneration
                let owned = Set(consumer.assignment)
                handler.keepOnly(owned)
                processed = processed.filter { owned.contains($0.key) }
            }
            let floor = handler.commitFloor
            do {
                try await handler.idle(stillOwned: stillOwned)
            } catch let error as KafkaError where error.meansAssignmentLost {
                handler.keepOnly([])
                continue
            }
            if handler.commitFloor != floor {
                committer.stage(Self.committable(processed, floor: handler.commitFloor), polledIn: generation)
            }
            guard let first = try await consumer.poll(timeout: handler.pollTimeout) else { continue }
            let polledIn = consumer.assignmentGeneration
            var batch = [first]
            while batch.count < maximumMessages, let next = try await consumer.poll(timeout: drainWait) {
                batch.append(next)
            }
            // A rebalance while the batch was drained: its first part may come from partitions that
            // are now read again from their committed offsets (eager protocol); drop the batch.
            guard consumer.assignmentGeneration == polledIn else {
                consumer.metrics?.droppedWork(count: batch.count)
                continue
            }
            let offsets: [KafkaTopicPartition: Int64]
            do {
                offsets = try await handler.process(batch, stillOwned: stillOwned)
            } catch let error as KafkaError where error.meansAssignmentLost {
                consumer.metrics?.droppedWork(count: batch.count)
                handler.keepOnly([])
                logger.warning("assignment lost during a batch; dropping it (its next owner processes it again)", [
                    "event": "assignment_lost", "messages": String(batch.count), "group": consumer.configuration.groupId,
                ])
                continue
            }
            processed.merge(offsets) { max($0, $1) }
            committer.stage(Self.committable(processed, floor: handler.commitFloor), polledIn: polledIn)
            await commit(now: true)
        }
        if !Task.isCancelled {
            // Stopping: what is held goes now rather than to the next owner (which would read every message
            // after it again), then everything processed is committed.
            await handler.finish()
            committer.stage(Self.committable(processed, floor: handler.commitFloor), polledIn: generation)
            await committer.commit(now: true)
        }
    }

    /// `processed` with each partition held back to its floor, if any.
    static func committable(_ processed: [KafkaTopicPartition: Int64], floor: [KafkaTopicPartition: Int64]) -> [KafkaTopicPartition: Int64] {
        processed.merging(floor.filter { processed[$0.key] != nil }) { next, held in min(next, held) }
    }
}
