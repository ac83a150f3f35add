/// Settings for a ``KafkaProducer``. The producer is always idempotent (`enable.idempotence=true`, `acks=all`).
public struct KafkaProducerConfiguration: Sendable {
    /// Comma-separated `host:port` list, e.g. `127.0.0.1:19092`.
    public var bootstrapServers: String
    /// Client id shown in broker logs and metrics.
    public var clientId: String
    /// How long librdkafka waits to batch messages (`linger.ms`).
    public var linger: Duration = .milliseconds(5)
    /// How long a message may wait for acknowledgement before its delivery fails (`message.timeout.ms`).
    public var messageTimeout: Duration = .seconds(30)
    /// Raw librdkafka properties applied last; they override everything above.
    public var additional: [String: String] = [:]

    public init(bootstrapServers: String, clientId: String) {
        self.bootstrapServers = bootstrapServers
        self.clientId = clientId
    }

    /// The librdkafka properties this configuration stands for.
    var librdkafkaProperties: [String: String] {
        var properties = [
            "bootstrap.servers": bootstrapServers,
            "client.id": clientId,
            "enable.idempotence": "true",
            "acks": "all",
            "linger.ms": String(linger.wholeMilliseconds),
            "message.timeout.ms": String(messageTimeout.wholeMilliseconds),
        ]
        properties.merge(additional) { _, new in new }
        return properties
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down (librdkafka's unit for most times).
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Milliseconds as a C `int` for librdkafka timeouts, clamped to 0...Int32.max.
    var timeoutMilliseconds: Int32 {
        Int32(clamping: max(0, wholeMilliseconds))
    }
}
