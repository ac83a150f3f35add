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
        while !Task.isCancelled {
            guard let message = try await consumer.poll(timeout: .milliseconds(250)) else { continue }
            var backoff: Duration = .milliseconds(100)
            while true {
                do {
                    _ = try await handler.handle(message.value, source: message)
                    try await consumer.commit(message)
                    break
                } catch is CancellationError {
                    return
                } catch {
                    metrics.failure("token_invalid")
                    logger.error("token-invalid failed, retrying: \(error)",
                                 ["event": "retry", "partition": String(message.partition), "offset": String(message.offset)])
                    try await Task.sleep(for: backoff)
                    backoff = min(backoff * 2, maximumBackoff)
                }
            }
        }
    }
}
