import Kafka
import Runtime
import ServiceKit

/// The detector's consume loop: one message at a time; the offset is committed only after the handler returns
/// (events produced and acknowledged, state written, or the message skipped as unreadable) — the `.perMessage`
/// policy of `KafkaConsumerService`. A failing message is retried with a bounded backoff until it succeeds or the
/// service stops; it is never skipped, because that would lose the events it carries.
enum DetectorLoop {
    /// The loop as a service ("detector-loop"), consuming until graceful shutdown or cancellation.
    static func service(consumer: KafkaConsumer, handler: SnapshotHandler, logger: Logger, metrics: DetectorMetrics,
                        maximumBackoff: Duration = .seconds(5)) -> KafkaConsumerService {
        KafkaConsumerService("detector-loop", consumer: consumer, logger: logger, commits: .perMessage(maximumBackoff: maximumBackoff, failed: { error, message in
            metrics.failure("handle")
            logger.error("snapshot failed, retrying: \(error)",
                         ["event": "retry", "partition": String(message.partition), "offset": String(message.offset)])
        }, handle: { message in
            _ = try await handler.handle(message.value, key: message.keyString, source: message)
        }))
    }
}
