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
    /// cancelled, or the consumer is closed.
    func run() async throws {
        while !Task.isCancelled && !GracefulShutdown.isRequested {
            guard let first = try await consumer.poll(timeout: .milliseconds(250)) else { continue }
            var batch = [first]
            while batch.count < maximumEvents, let next = try await consumer.poll(timeout: drainWait) {
                batch.append(next)
            }
            let offsets = try await processor.process(batch)
            try await commit(offsets)
        }
    }

    /// Commits with up to 3 attempts. If it still fails (e.g. the partitions were revoked by a rebalance) the
    /// batch is logged and left uncommitted: its new owner re-fans it out with the same job ids.
    private func commit(_ offsets: [KafkaTopicPartition: Int64]) async throws {
        var backoff: Duration = .milliseconds(100)
        for attempt in 1...3 {
            do {
                try await consumer.commit(offsets)
                return
            } catch {
                metrics.failure("commit")
                logger.warning("commit failed: \(error)", ["event": "commit_retry", "attempt": String(attempt)])
                if attempt < 3 { try await Task.sleep(for: backoff) }
                backoff = backoff * 4
            }
        }
        logger.error("giving up committing a batch; it will be redelivered", ["event": "commit_failed"])
    }
}
