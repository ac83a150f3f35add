import Runtime

/// A consumer loop for messages that must never be lost: one message at a time, its offset committed only
/// after `handle` returned.
///
/// - A message whose handling throws is retried with a capped exponential back-off until it succeeds,
///   the task is cancelled, or the member's assignment is lost; it is never skipped (a handler skips an
///   unreadable message by returning normally, after parking it in a dead-letter topic).
/// - When the assignment is lost (the broker expired the session, the generation changed) the message
///   in hand is dropped (`kafka_consumer_work_dropped_total`) and the loop goes back to polling: that
///   rejoins the group, and the partition's next owner reads the message again from the committed
///   offset. Commits follow ``KafkaOffsetCommitter``'s rules: a failed commit does not redo the handling.
public struct CommitAfterHandleLoop: Sendable {
    public let consumer: KafkaConsumer
    public var backoff: Backoff

    public init(consumer: KafkaConsumer, maximumBackoff: Duration = .seconds(5)) {
        self.consumer = consumer
        backoff = Backoff(initial: .milliseconds(100), maximum: maximumBackoff)
    }

    /// Runs until graceful shutdown is requested (after the message in hand is handled and
    /// committed) or the task is cancelled.
    /// - Parameters:
    ///   - logger: where commit failures and dropped work are logged.
    ///   - failed: called with each handling failure before its retry (count it, log it).
    ///   - handle: processes one message; returning means it may be committed.
    public func run(logger: Logger, failed: (any Error, KafkaMessage) -> Void,
                    handle: (KafkaMessage) async throws -> Void) async throws {
        let committer = KafkaOffsetCommitter(consumer: consumer, logger: logger, backoff: backoff)
        while !Task.isCancelled && !GracefulShutdown.isRequested {
            await committer.commit()
            guard let message = try await consumer.poll(timeout: .milliseconds(250)) else { continue }
            guard try await handleRetrying(message, logger: logger, failed: failed, handle: handle) else { continue }
            committer.stage(message)
            await committer.commit(now: true)
        }
        if !Task.isCancelled { await committer.commit(now: true) }
    }

    /// Handles `message`, retrying failures; false when it was dropped because the assignment is gone.
    /// - Throws: `CancellationError` when cancelled.
    private func handleRetrying(_ message: KafkaMessage, logger: Logger, failed: (any Error, KafkaMessage) -> Void,
                                handle: (KafkaMessage) async throws -> Void) async throws -> Bool {
        var delays = backoff
        while true {
            do {
                try await handle(message)
                return true
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                failed(error, message)
                // Only librdkafka's own verdict counts: it resets the fetch position when it
                // clears the assignment, so the dropped message is read again.
                if consumer.isAssignmentLost {
                    consumer.metrics?.droppedWork()
                    logger.warning("assignment lost while handling a message; dropping it (its next owner reads it again)", [
                        "group": consumer.configuration.groupId, "partition": message.topicPartition.description,
                        "offset": String(message.offset),
                    ])
                    return false
                }
                try await Task.sleep(for: delays.next())
            }
        }
    }
}
