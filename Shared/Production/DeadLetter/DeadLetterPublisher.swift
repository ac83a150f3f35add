import Contracts
import Kafka
import Runtime

/// Parks messages a consumer cannot decode on the dead-letter topic (`pipeline.dead-letter`) so the
/// consumer moves on instead of stopping or retrying forever.
///
/// ``publish(_:kind:error:)`` returns only once the broker acknowledged the record, so a caller that
/// commits the message's offset afterwards never loses a poison message silently. Each parked message
/// counts `dead_letters_total{topic,kind}` (topic = the source topic).
public struct DeadLetterPublisher: Sendable {
    let producer: KafkaProducer
    let registry: MetricsRegistry
    let logger: Logger
    /// The topic records are produced to (tests substitute a unique one).
    public let topic: String
    let clock: any WallClock
    let maximumBackoff: Duration

    /// - Parameters:
    ///   - producer: an acknowledged producer the caller owns (and shuts down).
    ///   - maximumBackoff: the longest pause between attempts while the broker refuses the record.
    public init(
        producer: KafkaProducer, metrics: MetricsRegistry, logger: Logger, topic: String = Topic.deadLetter.name,
        clock: any WallClock = SystemWallClock(), maximumBackoff: Duration = .seconds(5)
    ) {
        self.producer = producer
        self.registry = metrics
        self.logger = logger
        self.topic = topic
        self.clock = clock
        self.maximumBackoff = maximumBackoff
    }

    /// The record for `message`, refused with `kind` and `error`.
    public func record(for message: KafkaMessage, kind: String, error: String) -> DeadLetterRecord {
        DeadLetterRecord(
            sourceTopic: message.topic, partition: message.partition, offset: message.offset, key: message.key, kind: kind,
            error: error, payload: message.value, receivedAt: Int64(clock.now().timeIntervalSince1970 * 1000))
    }

    /// Produces the record for `message` and waits for the acknowledgement, retrying with a bounded
    /// backoff while the broker refuses it.
    /// - Throws: `CancellationError` when the task is cancelled before the record was acknowledged
    ///   (the caller must then leave the offset uncommitted).
    public func publish(_ message: KafkaMessage, kind: String, error: String) async throws {
        let record = record(for: message, kind: kind, error: error)
        let value = try MessageCodec.encode(record)
        var backoff = Backoff(initial: .milliseconds(100), maximum: maximumBackoff)
        while true {
            try Task.checkCancellation()
            do {
                _ = try await producer.send(topic: topic, key: record.recordKey, value: value)
                break
            } catch {
                registry.counter("dead_letter_failures_total", help: "Dead-letter records the broker refused (retried)").increment()
                logger.warning("producing a dead-letter record failed; retrying", [
                    "event": "dead_letter_retry", "source": record.recordKey, "error": "\(error)",
                ])
                try await Task.sleep(for: backoff.next())
            }
        }
        registry.counter("dead_letters_total", help: "Undecodable messages parked on the dead-letter topic",
                         labels: ["topic": message.topic, "kind": kind]).increment()
        logger.warning("message dead-lettered", [
            "event": "dead_letter", "source": record.recordKey, "kind": kind, "bytes": String(message.value.count),
            "error": String(record.error.prefix(300)),
        ])
    }
}
