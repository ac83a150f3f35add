import Kafka
import Runtime

/// Consumes `match.events`: waits for a message, then drains what is already fetched (up to
/// `maximumEvents`, each extra poll waiting `drainWait`) into one latest-wins batch, processes it,
/// and commits the batch's offsets only after every kept event's jobs were acknowledged.
struct EventLoop: Sendable {
    let consumer: KafkaConsumer
    let processor: EventBatchProcessor
    let maximumEvents: Int
    let drainWait: Duration
    let logger: Logger
    let metrics: CoordinatorMetrics

    /// Runs until graceful shutdown is requested (after committing the batch in hand), the task is
    /// cancelled, or the consumer is closed. When the member's assignment is lost mid-batch the batch is
    /// dropped and the loop goes back to polling (rejoining the group); the partitions' next owner
    /// re-fans those events out with the same job ids. Commits follow `KafkaOffsetCommitter`.
    func run() async throws {
        let committer = KafkaOffsetCommitter(consumer: consumer, logger: logger)
        while !Task.isCancelled && !GracefulShutdown.isRequested {
            if case .willRetry = await committer.commit() { metrics.failure("commit") }
            guard let first = try await consumer.poll(timeout: .milliseconds(250)) else { continue }
            let generation = consumer.assignmentGeneration
            var batch = [first]
            while batch.count < maximumEvents, let next = try await consumer.poll(timeout: drainWait) {
                batch.append(next)
            }
            // A rebalance while the batch was drained: its first part may come from partitions that
            // are now read again from their committed offsets (eager protocol); drop the batch.
            guard consumer.assignmentGeneration == generation else {
                consumer.metrics?.droppedWork(count: batch.count)
                continue
            }
            let offsets: [KafkaTopicPartition: Int64]
            do {
                offsets = try await processor.process(batch, stillOwned: { try consumer.requireAssignment() })
            } catch let error as KafkaError where error.meansAssignmentLost {
                consumer.metrics?.droppedWork(count: batch.count)
                logger.warning("assignment lost during a batch; dropping it (its next owner fans it out again)", [
                    "event": "assignment_lost", "messages": String(batch.count), "group": consumer.configuration.groupId,
                ])
                continue
            }
            committer.stage(offsets, polledIn: generation)
            if case .willRetry = await committer.commit(now: true) { metrics.failure("commit") }
        }
        if !Task.isCancelled { await committer.commit(now: true) }
    }
}
