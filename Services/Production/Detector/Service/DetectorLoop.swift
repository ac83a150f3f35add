import Kafka
import Runtime

/// The consume loop: one message at a time per consumer; the offset is committed only after the handler
/// returns (events produced and acknowledged, state written, or the message skipped as unreadable).
/// A failing message is retried with a bounded backoff until it succeeds or the service stops; it is
/// never skipped, because that would lose the events it carries.
struct DetectorLoop: Sendable {
    let consumer: KafkaConsumer
    let handler: SnapshotHandler
    let logger: Logger
    let metrics: DetectorMetrics
    var maximumBackoff: Duration = .seconds(5)

    /// Runs until the task is cancelled.
    func run() async throws {
        try await CommitAfterHandleLoop(consumer: consumer, maximumBackoff: maximumBackoff).run(logger: logger, failed: { error, message in
            metrics.failure("handle")
            logger.error("snapshot failed, retrying: \(error)",
                         ["event": "retry", "partition": String(message.partition), "offset": String(message.offset)])
        }, handle: { message in
            _ = try await handler.handle(message.value, key: message.keyString, source: message)
        })
    }
}
