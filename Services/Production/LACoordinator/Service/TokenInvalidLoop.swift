import Kafka
import Runtime

/// Consumes `push.token-invalid` one message at a time: applies it (retrying database failures with a
/// bounded backoff, never skipping a readable message), then commits it. Unreadable messages are
/// counted, logged and committed.
struct TokenInvalidLoop: Sendable {
    let consumer: KafkaConsumer
    let handler: TokenInvalidHandler
    let logger: Logger
    let metrics: CoordinatorMetrics
    var maximumBackoff: Duration = .seconds(5)

    /// Runs until the task is cancelled or the consumer is closed.
    func run() async throws {
        try await CommitAfterHandleLoop(consumer: consumer, maximumBackoff: maximumBackoff).run(logger: logger, failed: { error, message in
            metrics.failure("token_invalid")
            logger.error("token-invalid failed, retrying: \(error)",
                         ["event": "retry", "partition": String(message.partition), "offset": String(message.offset)])
        }, handle: { message in
            _ = try await handler.handle(message.value, source: message)
        })
    }
}
