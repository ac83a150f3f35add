import Runtime

/// A consumer loop for messages that must never be lost: one message at a time, its offset committed only
/// after `handle` returned. A message whose handling throws is retried with a bounded exponential backoff
/// until it succeeds or the task is cancelled; it is never skipped (a handler skips an unreadable message by
/// returning normally, after parking it in a dead-letter topic).
public struct CommitAfterHandleLoop: Sendable {
    public let consumer: KafkaConsumer
    public var initialBackoff: Duration = .milliseconds(100)
    public var maximumBackoff: Duration = .seconds(5)

    public init(consumer: KafkaConsumer, maximumBackoff: Duration = .seconds(5)) {
        self.consumer = consumer
        self.maximumBackoff = maximumBackoff
    }

    /// Runs until graceful shutdown is requested (after the message in hand is handled and
    /// committed) or the task is cancelled.
    /// - Parameters:
    ///   - failed: called with each failure before its retry (count it, log it).
    ///   - handle: processes one message; returning means it may be committed.
    public func run(failed: (any Error, KafkaMessage) -> Void,
                    handle: (KafkaMessage) async throws -> Void) async throws {
        while !Task.isCancelled && !GracefulShutdown.isRequested {
            guard let message = try await consumer.poll(timeout: .milliseconds(250)) else { continue }
            var backoff = initialBackoff
            while true {
                do {
                    try await handle(message)
                    try await consumer.commit(message)
                    break
                } catch is CancellationError {
                    return
                } catch {
                    failed(error, message)
                    try await Task.sleep(for: backoff)
                    backoff = min(backoff * 2, maximumBackoff)
                }
            }
        }
    }
}
