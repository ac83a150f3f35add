import Runtime
import Synchronization

/// What the C callbacks of one `rd_kafka_t` reach through its opaque pointer.
final class RDKafkaCallbackContext: Sendable {
    /// Receives librdkafka's own log lines and error callbacks.
    let logger: Logger
    /// True for producers: delivery reports resolve per-message handlers.
    let delivers: Bool
    /// Consumer-only state: assignment, rebalance hook, statistics.
    let consumer: RDKafkaConsumerState?
    /// `bootstrap.servers` of the client (for ``RDKafkaRebootstrap``); set when the client is made.
    let bootstrapServers = LockedValue<String?>(nil)
    /// Times the bootstrap servers were added again.
    let rebootstraps = Atomic<Int>(0)
    /// The last TLS or SASL failure librdkafka reported (a wrong password, an unknown CA), for clear start-up errors.
    let securityFailure = LockedValue<String?>(nil)

    init(logger: Logger, delivers: Bool = false, consumer: RDKafkaConsumerState? = nil) {
        self.logger = logger
        self.delivers = delivers
        self.consumer = consumer
    }
}

/// Resolves one produced message when its delivery report arrives.
///
/// Passed to librdkafka retained as the message opaque; released exactly once, either by the
/// delivery callback or by the enqueue path when `rd_kafka_produceva` refuses the message.
final class RDKafkaDeliveryHandler: Sendable {
    let complete: @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void

    init(_ complete: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void) {
        self.complete = complete
    }
}
